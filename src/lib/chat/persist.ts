import "server-only";
import { randomUUID } from "node:crypto";
import type { StoredFigureCheck } from "@/shared/figure-check";
import type { ToolRunResult } from "@/shared/tool-run";
import type { DbHandle } from "../db";
import { type FinishOutcome, finishTurnRow, type OpenedPackRow, openTurnRow } from "../db/queries/turns";
import { usageMonth } from "../db/queries/usage";
import type { MessageStatus } from "../db/schema";
import { AppError, isAppError } from "../errors";
import { boundHistory, type HistoryMessage, type StoredMessage } from "./history";
import { budgetExhausted, rateLimited, type TurnLimits } from "./limits";
import type { EnabledPack } from "./loop";

// A turn touches the database twice, each time in one statement (one round trip): before the model is called
// (budget, the visitor's conversation and message, the history, the packs) and after the answer ended (the
// answer, its tool runs and the usage, retried through a short outage). The statements are SQL functions that
// enter the tenant themselves (src/lib/db/sql/turn-functions.sql, db.tenantCall), so each is atomic and bounded
// by row-level security. No transaction is ever held across the model stream.

const HISTORY_ROWS = 100;

export type TurnStart = {
  conversationId: string;
  /** The conversation's live version as the turn opened: the answer is stored only while it is unchanged. */
  liveVersion: number;
  userMessageId: string;
  /** The visitor's words the model answers: as sent, or as stored when retrying. */
  message: string;
  history: HistoryMessage[];
};

export function dbUnavailable(): AppError {
  return new AppError("db_unavailable", "The chat is unavailable right now. Please try again in a moment.");
}

/**
 * The remembered tenant row the caller checked is no longer the current one: nothing was taken or written.
 * The chat handler then reads the tenant, guards again and opens the turn without a remembered row, so this
 * never reaches a visitor.
 */
function tenantChanged(): AppError {
  return new AppError("conflict", "This chat's settings just changed. Please send your message again.", {
    tenantChanged: true,
  });
}

export function isTenantChanged(err: unknown): boolean {
  return isAppError(err) && err.details?.tenantChanged === true;
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

/**
 * A turn opens either for the model, or, while the visitor waits for or talks with a person, as their stored
 * message only (in the live log at `seq`): the model is not called.
 */
export type TurnOpen =
  | (TurnStart & { live?: undefined; enabled: EnabledPack[] })
  | { live: "waiting" | "person"; conversationId: string; userMessageId: string; seq: number };

/** Turns the tenant's enabled pack rows (as the opening statement read them) into packs ready to run. */
export type LoadEnabled = (rows: OpenedPackRow[], tenantId: string) => EnabledPack[] | Promise<EnabledPack[]>;

/**
 * Opens a turn in one statement: the rate limits when they can ride along (`limits`), the month's budget, the visitor's conversation (or a new one), the history,
 * the visitor's message and the enabled packs (npm run bench: one round trip instead of nine). `budget` is the
 * setting in force, from the tenant row the guard loaded (0 = no budget). `admit` runs first: the handler
 * reserves the stream slot there, and releases it when this throws. Every refusal (slot, budget, foreign
 * conversation, database fault) stores nothing: the statement refuses before it writes, or fails as a whole.
 */
export async function openTurn(
  db: DbHandle,
  input: VisitorMessage & {
    budget: number;
    now?: Date;
    limits?: TurnLimits | null;
    /** The version of a remembered tenant row the caller's checks used (known-tenants.ts); null: just read. */
    seen?: string | null;
  },
  steps: { admit: () => void; loadEnabled: LoadEnabled },
): Promise<TurnOpen> {
  steps.admit();
  let row: Awaited<ReturnType<typeof openTurnRow>>;
  try {
    row = await openTurnRow(db, {
      tenantId: input.tenantId,
      visitorId: input.visitorId,
      conversationId: input.conversationId,
      origin: input.origin,
      pageUrl: input.pageUrl,
      locale: input.locale,
      message: input.message,
      retry: Boolean(input.retryOf),
      month: usageMonth(input.now),
      budget: input.budget,
      historyRows: HISTORY_ROWS,
      limits: input.limits ?? null,
      seen: input.seen ?? null,
    });
  } catch (err) {
    if (isAppError(err)) throw err;
    throw Object.assign(dbUnavailable(), { cause: err });
  }
  if (row.refused === "rate") throw rateLimited(row.retryAfterSec);
  if (row.refused === "stale") throw tenantChanged();
  if (row.refused === "live") {
    throw new AppError(
      "conflict",
      "A person is looking after this conversation. Please write your message again.",
    );
  }
  if (row.refused !== undefined) {
    // Someone else's conversation looks exactly like a missing one.
    throw row.refused === "budget"
      ? budgetExhausted()
      : new AppError("not_found", "This conversation was not found. Please start a new one.");
  }
  if (row.live !== undefined) {
    return { live: row.live, conversationId: row.conversationId, userMessageId: row.messageId, seq: row.seq };
  }
  const enabled = await steps.loadEnabled(row.packs, input.tenantId);
  if (input.retryOf) {
    return {
      ...retryStart(row.conversationId, row.liveVersion, input.retryOf, row.history, input.historyMaxChars),
      enabled,
    };
  }
  return {
    conversationId: row.conversationId,
    liveVersion: row.liveVersion,
    userMessageId: row.messageId as string,
    message: input.message,
    history: boundHistory(row.history, input.historyMaxChars),
    enabled,
  };
}

/**
 * A retry answers the conversation's newest visitor message again, without storing it a second time. Only
 * that message qualifies (an older one would get its answer out of order), only in this visitor's own
 * conversation (checked before, under the tenant's RLS), and only while no complete answer follows it.
 */
function retryStart(
  conversationId: string,
  liveVersion: number,
  retryOf: string,
  newestFirst: readonly (StoredMessage & { id: string })[],
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
    liveVersion,
    userMessageId: question.id,
    message: question.content,
    history: boundHistory(newestFirst.slice(at + 1), historyMaxChars),
  };
}

type RunToStore = ToolRunResult & { callId: string };

export type TurnEnd = {
  tenantId: string;
  conversationId: string;
  liveVersion: number;
  content: string;
  status: MessageStatus;
  reason: string | null;
  model: string;
  promptTokens: number;
  completionTokens: number;
  /** The figures are estimates: the provider generated but never reported usage. */
  usageEstimated?: boolean;
  runs: RunToStore[];
  /** The figure check's verdict (src/lib/chat/figures). */
  figureCheck?: StoredFigureCheck | null;
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
): Promise<{ messageId: string; attempts: number; outcome: FinishOutcome }> {
  const messageId = randomUUID();
  const started = Date.now();
  let delay = retry.firstDelayMs;
  for (let attempt = 1; ; attempt++) {
    try {
      const outcome = await storeAnswer(db, end, messageId);
      return { messageId, attempts: attempt, outcome };
    } catch (err) {
      const elapsed = Date.now() - started;
      if (!worthRetrying(err) || elapsed + delay > retry.totalMs) throw err;
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, retry.maxDelayMs);
    }
  }
}

async function storeAnswer(db: DbHandle, end: TurnEnd, messageId: string) {
  const at = end.at ?? new Date();
  // A retry whose earlier attempt committed finds the id taken and stores nothing more ('duplicate').
  return finishTurnRow(db, {
    tenantId: end.tenantId,
    messageId,
    conversationId: end.conversationId,
    content: end.content,
    status: end.status,
    reason: end.reason,
    model: end.model,
    promptTokens: end.promptTokens,
    completionTokens: end.completionTokens,
    usageEstimated: end.usageEstimated ?? false,
    runs: end.runs,
    month: usageMonth(at),
    at,
    liveVersion: end.liveVersion,
    figureCheck: end.figureCheck ?? null,
  });
}
