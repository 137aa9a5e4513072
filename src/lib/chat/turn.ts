import "server-only";
import { citationsFrom } from "@/shared/citations";
import type { DbHandle } from "../db";
import type { BotSettings } from "../db/schema";
import type { Env } from "../env";
import type { Logger } from "../log";
import type { BookingDesk } from "../tools/booking-desk";
import type { Lang, ToolDefinition, ToolPack, ToolVisitor } from "../tools/contract";
import type { KnowledgeSearcher } from "../tools/knowledge-search";
import type { ProposeCall } from "./confirm-round";
import type { Emit } from "./events";
import { checkTurnFigures, type FigureCheckOutcome } from "./figures/turn-check";
import { recordHandoff } from "./handoff";
import type { HistoryMessage } from "./history";
import {
  type EnabledPack,
  type ToolRunRecord as EnabledRunRecord,
  type LoopResult,
  type RunTool,
  runLoop,
  visitorMessage,
} from "./loop";
import type { ModelClient } from "./model-http";
import type { ModelMessage } from "./model-types";
import { finishTurn, type LoadEnabled, type StoreRetry } from "./persist";
import { buildSystemPrompt } from "./prompt";
import type { Profile } from "./providers";

/** The tool side of a turn: injectable so tests can bring their own packs without touching ALL_PACKS. */
export type PackDeps = {
  /** Makes the enabled pack rows the turn's opening statement read ready to run (no query of its own). */
  loadEnabled: LoadEnabled;
  toolDefinitions: (enabled: EnabledPack[]) => ToolDefinition[];
  promptHints: (enabled: EnabledPack[]) => string[];
  chipLabel: (pack: ToolPack, lang?: Lang) => string;
  runTool: RunTool;
  /** The business's indexed knowledge, handed to the packs in their run context (search_knowledge reads it). */
  knowledge?: KnowledgeSearcher;
  /** The business's booking requests (Inbox, mail, webhook), handed to a confirmed request_booking call. */
  bookings?: BookingDesk;
};

export type Turn = {
  db: DbHandle;
  env: Env;
  client: ModelClient;
  model: string;
  /** The model server's profile and learned-adaptation key (see providers.ts); generic when absent. */
  profile?: Profile;
  serverKey?: string;
  packs: PackDeps;
  enabled: EnabledPack[];
  tenant: { id: string; name: string; bot: BotSettings };
  conversationId: string;
  /** The conversation's live version as the turn opened (persist.ts). */
  liveVersion: number;
  history: HistoryMessage[];
  /** The visitor's new words; null for the round after a confirmation card was decided (decide-turn.ts). */
  message: string | null;
  /** Tool calls decided since the history (a card confirmed, declined or expired), as the model must see them. */
  decided?: ModelMessage[];
  /** Their records, stored with this turn's answer so the trace shows every decision. */
  decidedRuns?: EnabledRunRecord[];
  /** Shows confirmation cards (the widget); absent where there are no buttons. */
  propose?: ProposeCall;
  lang?: Lang;
  log: Logger;
  /** The verified visitor (the packs' ctx.visitor); `enabled` already leaves out what they may not have. */
  visitor?: ToolVisitor;
  /** The business lets packs that ask for a verified visitor run without one. */
  verifiedOptional?: boolean;
  /** How long the answer's store is retried through an outage; STORE_RETRY unless a test brings its own. */
  storeRetry?: StoreRetry;
};

export function turnMessages(turn: Turn, now = new Date()): ModelMessage[] {
  const system = buildSystemPrompt({
    tenantName: turn.tenant.name,
    bot: turn.tenant.bot,
    hints: turn.packs.promptHints(turn.enabled),
    lang: turn.lang,
    now,
  });
  return [
    { role: "system", content: system },
    ...turn.history.map((m) => ({ role: m.role, content: m.content })),
    ...(turn.decided ?? []),
    ...(turn.message === null ? [] : [{ role: "user" as const, content: turn.message }]),
  ];
}

/** The model and the packs, round by round; a crash is kept on record as a failed answer. */
async function runTurnLoop(turn: Turn, emit: Emit, signal: AbortSignal): Promise<LoopResult> {
  const e = turn.env;
  try {
    return await runLoop(
      {
        client: turn.client,
        model: turn.model,
        enabled: turn.enabled,
        tools: turn.packs.toolDefinitions(turn.enabled),
        runTool: turn.packs.runTool,
        chipLabel: turn.packs.chipLabel,
        maxRounds: e.MICHI_MAX_TOOL_ROUNDS,
        maxTokens: e.MICHI_MAX_OUTPUT_TOKENS,
        timeoutMs: e.MICHI_MODEL_TIMEOUT_MS,
        idleTimeoutMs: e.MICHI_MODEL_IDLE_TIMEOUT_MS,
        firstByteTimeoutMs: e.MICHI_MODEL_FIRST_BYTE_TIMEOUT_MS,
        toolTimeoutMs: e.MICHI_TOOL_TIMEOUT_MS,
        toolMaxChars: e.MICHI_TOOL_RESULT_MAX_CHARS,
        profile: turn.profile,
        serverKey: turn.serverKey,
        propose: turn.propose,
      },
      {
        tenantId: turn.tenant.id,
        conversationId: turn.conversationId,
        lang: turn.lang,
        signal,
        log: turn.log,
        knowledge: turn.packs.knowledge,
        visitor: turn.visitor,
        verifiedOptional: turn.verifiedOptional,
      },
      turnMessages(turn),
      emit,
    );
  } catch (err) {
    // A bug, not a fault of the world: keep the turn on record as failed and say so plainly.
    turn.log.error({ err }, "chat turn crashed");
    return {
      text: "",
      status: "failed",
      reason: "model_error",
      usage: { promptTokens: 0, completionTokens: 0 },
      usageEstimated: false,
      runs: [],
      rounds: 0,
    };
  }
}

/** The figure check of a complete answer (src/lib/chat/figures); anything else is stored as it came. */
function checkFigures(turn: Turn, result: LoopResult): FigureCheckOutcome {
  if (result.status !== "complete") return { content: result.text, stored: null, event: null };
  return checkTurnFigures({
    mode: turn.tenant.bot.figureCheck,
    lang: turn.lang,
    // A confirmed action's round has no new visitor message; its run's result is a source like the round's.
    message: turn.message ?? "",
    instructions: turn.tenant.bot.instructions,
    answer: result.text,
    runs: [...(turn.decidedRuns ?? []), ...result.runs],
  });
}

/**
 * Runs the loop, stores what came of it and tells the widget how it ended. Never throws: whatever happens,
 * the visitor's message is already stored and the answer is stored as complete, partial or failed.
 */
export async function executeTurn(turn: Turn, emit: Emit, signal: AbortSignal): Promise<LoopResult | null> {
  const started = Date.now();
  const result = await runTurnLoop(turn, emit, signal);
  const checked = checkFigures(turn, result);

  let messageId: string;
  let outcome: string;
  try {
    let attempts: number;
    ({ messageId, attempts, outcome } = await finishTurn(
      turn.db,
      {
        tenantId: turn.tenant.id,
        conversationId: turn.conversationId,
        liveVersion: turn.liveVersion,
        content: checked.content,
        status: result.status,
        reason: result.reason,
        model: turn.model,
        promptTokens: result.usage.promptTokens,
        completionTokens: result.usage.completionTokens,
        usageEstimated: result.usageEstimated,
        runs: [...(turn.decidedRuns ?? []), ...result.runs],
        figureCheck: checked.stored,
      },
      turn.storeRetry,
    ));
    if (attempts > 1) turn.log.warn({ attempts }, "chat turn stored after the database came back");
  } catch (err) {
    // The visitor's message is stored and they have read the answer; only its record failed, after retrying
    // for the whole bound. Nothing of the answer is stored, which is what the visitor is told.
    turn.log.error({ err }, "chat turn could not be stored");
    emit({
      type: "error",
      data: {
        code: "db_unavailable",
        message: "We could not save this answer. Please try again in a moment.",
        conversationId: turn.conversationId,
      },
    });
    return result;
  }

  turn.log.info(
    {
      status: result.status,
      reason: result.reason,
      rounds: result.rounds,
      toolRuns: result.runs.map((r) => ({ pack: r.packId, outcome: r.outcome, ms: r.durationMs })),
      promptTokens: result.usage.promptTokens,
      completionTokens: result.usage.completionTokens,
      usageEstimated: result.usageEstimated,
      ...(result.toolsDropped ? { toolsDropped: result.toolsDropped } : {}),
      ms: Date.now() - started,
      ...(turn.env.MICHI_LOG_CONTENT ? { content: { message: turn.message, answer: result.text } } : {}),
    },
    "chat turn",
  );

  if (outcome === "superseded") {
    // A person was asked for or took over while the model answered: that answer is not kept.
    turn.log.info("chat turn superseded by a person");
    emit({ type: "live", data: { conversationId: turn.conversationId } });
    return result;
  }
  await recordHandoff(
    turn.db,
    { tenantId: turn.tenant.id, conversationId: turn.conversationId, messageId, lang: turn.lang },
    result.runs,
    turn.log,
  );
  if (result.status === "complete") {
    if (checked.event) emit(checked.event);
    const citations = citationsFrom(checked.content, result.runs);
    emit({
      type: "done",
      data: { conversationId: turn.conversationId, messageId, ...(citations.length ? { citations } : {}) },
    });
  } else if (result.reason && result.reason !== "disconnected") {
    emit({
      type: "error",
      data: {
        code: result.reason,
        message: visitorMessage(result.reason),
        conversationId: turn.conversationId,
        messageId,
      },
    });
  }
  return result;
}
