import "server-only";
import { randomUUID } from "node:crypto";
import type { ToolRunResult } from "@/shared/tool-run";
import type { DbHandle, TenantTx } from "../db";
import {
  createConversation,
  findVisitorConversation,
  insertMessage,
  insertToolRuns,
  messageExists,
  recentMessages,
  touchConversation,
} from "../db/queries/conversations";
import { addUsage, monthUsage, usageMonth } from "../db/queries/usage";
import type { MessageStatus } from "../db/schema";
import { AppError, isAppError } from "../errors";
import { boundHistory, type HistoryMessage } from "./history";
import { budgetExhausted, budgetFrom } from "./limits";
import type { EnabledPack } from "./loop";

// A turn touches the database twice, each time in one short transaction: before the model is called (budget,
// packs, the visitor's message) and after the answer ended (the answer, its tool runs and the usage, retried
// through a short outage). No transaction is ever held across the model stream: on PGlite there is a single
// connection.

const HISTORY_ROWS = 100;

export type TurnStart = {
  conversationId: string;
  userMessageId: string;
  /** The visitor's words the model answers: as sent, or as stored when retrying. */
  message: string;
  history: HistoryMessage[];
};

export function dbUnavailable(): AppError {
  return new AppError("db_unavailable", "The chat is unavailable right now. Please try again in a moment.");
}

type VisitorMessage = {
  tenantId: string;
  visitorId: string;
  conversationId?: string;
  origin: string;
  pageUrl: string;
  locale: string;
  message: string;
  /** Answer this stored visitor message again instead of storing `message` (the widget's Retry). */
  retryOf?: string;
  historyMaxChars: number;
};

export type TurnOpen = TurnStart & { enabled: EnabledPack[] };

/**
 * Opens a turn in one tenant transaction: the month's budget, then the enabled packs, then the visitor's
 * message (creating the conversation when needed) and the history before it. One transaction, not three,
 * saves two rounds of begin/set_config/commit per turn (npm run bench). `budget` is the setting in force,
 * from the tenant row the guard loaded (0 = no budget). `admit` runs once the budget allows the turn and
 * before anything is stored: the handler reserves the stream slot there, so a refusal (budget, slot, foreign
 * conversation, database fault) rolls back and stores nothing.
 */
export async function openTurn(
  db: DbHandle,
  input: VisitorMessage & { budget: number; now?: Date },
  steps: { admit: () => void; loadEnabled: (tx: TenantTx, tenantId: string) => Promise<EnabledPack[]> },
): Promise<TurnOpen> {
  try {
    return await db.forTenant(input.tenantId, async (tx) => {
      const month = usageMonth(input.now);
      const usage = await monthUsage(tx, input.tenantId, month);
      if (budgetFrom(month, input.budget, usage.totalTokens).exhausted) throw budgetExhausted();
      steps.admit();
      const enabled = await steps.loadEnabled(tx, input.tenantId);
      return { ...(await storeVisitorMessage(tx, input)), enabled };
    });
  } catch (err) {
    if (isAppError(err)) throw err;
    throw Object.assign(dbUnavailable(), { cause: err });
  }
}

async function storeVisitorMessage(tx: TenantTx, input: VisitorMessage): Promise<TurnStart> {
  let conversationId = input.conversationId;
  if (conversationId) {
    const found = await findVisitorConversation(tx, conversationId, input.visitorId);
    // Someone else's conversation looks exactly like a missing one.
    if (!found) throw new AppError("not_found", "This conversation was not found. Please start a new one.");
    await touchConversation(tx, conversationId);
  } else {
    const created = await createConversation(tx, {
      tenantId: input.tenantId,
      visitorId: input.visitorId,
      origin: input.origin,
      pageUrl: input.pageUrl,
      locale: input.locale,
    });
    conversationId = created.id;
  }
  const earlier = input.conversationId ? await recentMessages(tx, conversationId, HISTORY_ROWS) : [];
  if (input.retryOf) return retryStart(conversationId, input.retryOf, earlier, input.historyMaxChars);
  const user = await insertMessage(tx, {
    tenantId: input.tenantId,
    conversationId,
    role: "user",
    content: input.message,
  });
  return {
    conversationId,
    userMessageId: user.id,
    message: input.message,
    history: boundHistory(earlier, input.historyMaxChars),
  };
}

/**
 * A retry answers the conversation's newest visitor message again, without storing it a second time. Only
 * that message qualifies (an older one would get its answer out of order), only in this visitor's own
 * conversation (checked before, under the tenant's RLS), and only while no complete answer follows it.
 */
function retryStart(
  conversationId: string,
  retryOf: string,
  newestFirst: Awaited<ReturnType<typeof recentMessages>>,
  historyMaxChars: number,
): TurnStart {
  const at = newestFirst.findIndex((m) => m.role === "user");
  const question = newestFirst[at];
  if (!question || question.id !== retryOf) {
    throw new AppError("not_found", "This message cannot be sent again. Please type it anew.");
  }
  if (newestFirst.slice(0, at).some((m) => m.status === "complete")) {
    throw new AppError("conflict", "This message has been answered already.");
  }
  return {
    conversationId,
    userMessageId: question.id,
    message: question.content,
    history: boundHistory(newestFirst.slice(at + 1), historyMaxChars),
  };
}

type RunToStore = ToolRunResult & { callId: string };

export type TurnEnd = {
  tenantId: string;
  conversationId: string;
  content: string;
  status: MessageStatus;
  reason: string | null;
  model: string;
  promptTokens: number;
  completionTokens: number;
  /** The figures are estimates: the provider generated but never reported usage. */
  usageEstimated?: boolean;
  runs: RunToStore[];
  at?: Date;
};

/**
 * How long the end-of-turn store keeps trying while the database is away. The visitor has already read the
 * answer and waits for its end: a short outage (a failover, a restarted pooler, a dropped connection) should
 * lose nothing, but a long one must not keep them waiting. Code, not environment: it is a product decision.
 */
export type StoreRetry = { totalMs: number; firstDelayMs: number; maxDelayMs: number };
export const STORE_RETRY: StoreRetry = { totalMs: 5000, firstDelayMs: 100, maxDelayMs: 1000 };

// SQLSTATE classes that a retry cannot heal: data exceptions, integrity violations, syntax or access rules.
const PERMANENT_SQLSTATE = /^(22|23|42)/;

function worthRetrying(err: unknown): boolean {
  if (isAppError(err)) return false;
  const code = (err as { code?: unknown } | null)?.code;
  return !(typeof code === "string" && PERMANENT_SQLSTATE.test(code));
}

/**
 * Stores the answer (complete, partial or failed), its tool runs and the month's usage, atomically, retrying
 * with exponential backoff for at most `retry.totalMs`. The message id is chosen here, before the first try:
 * when a commit succeeded but its acknowledgement was lost with the connection, the retry finds the row and
 * stops, so an answer is never stored twice.
 */
export async function finishTurn(
  db: DbHandle,
  end: TurnEnd,
  retry: StoreRetry = STORE_RETRY,
): Promise<{ messageId: string; attempts: number }> {
  const messageId = randomUUID();
  const started = Date.now();
  let delay = retry.firstDelayMs;
  for (let attempt = 1; ; attempt++) {
    try {
      await storeAnswer(db, end, messageId, attempt > 1);
      return { messageId, attempts: attempt };
    } catch (err) {
      const elapsed = Date.now() - started;
      if (!worthRetrying(err) || elapsed + delay > retry.totalMs) throw err;
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, retry.maxDelayMs);
    }
  }
}

async function storeAnswer(db: DbHandle, end: TurnEnd, messageId: string, retrying: boolean) {
  const at = end.at ?? new Date();
  await db.forTenant(end.tenantId, async (tx) => {
    if (retrying && (await messageExists(tx, messageId))) return;
    const msg = await insertMessage(tx, {
      id: messageId,
      tenantId: end.tenantId,
      conversationId: end.conversationId,
      role: "assistant",
      content: end.content,
      status: end.status,
      reason: end.reason,
      model: end.model,
      promptTokens: end.promptTokens,
      completionTokens: end.completionTokens,
      usageEstimated: end.usageEstimated ?? false,
    });
    await insertToolRuns(
      tx,
      end.runs.map((r) => ({
        tenantId: end.tenantId,
        conversationId: end.conversationId,
        messageId: msg.id,
        packId: r.packId,
        callId: r.callId,
        args: r.args ?? null,
        result: r.result,
        resultChars: r.resultChars,
        resultTokens: r.resultTokens,
        durationMs: r.durationMs,
        outcome: r.outcome,
      })),
    );
    await addUsage(tx, {
      tenantId: end.tenantId,
      month: usageMonth(at),
      promptTokens: end.promptTokens,
      completionTokens: end.completionTokens,
      estimatedTokens: end.usageEstimated ? end.promptTokens + end.completionTokens : 0,
    });
    await touchConversation(tx, end.conversationId, at);
  });
}
