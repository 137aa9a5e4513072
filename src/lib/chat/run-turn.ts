import "server-only";
import { LOCALE_MAX, langOf } from "../../shared/languages";
import type { DbHandle } from "../db";
import { markConversationVerified } from "../db/queries/visitor-identity";
import type { BotSettings, TenantRateLimits, VerifiedVisitor } from "../db/schema";
import type { Env } from "../env";
import { AppError } from "../errors";
import { log } from "../log";
import type { Lang } from "../tools/contract";
import { offeredPacks } from "../tools/runtime";
import type { Emit } from "./events";
import {
  acquireStreamSlot,
  limitSettings,
  ratePointsForTurn,
  type TurnLimits,
  takeRatePoints,
} from "./limits";
import type { EnabledPack, LoopResult } from "./loop";
import { createModelClient, modelProfile, modelStatus, resolveModel } from "./model";
import type { ModelClient } from "./model-http";
import { openTurn, type StoreRetry } from "./persist";
import { executeTurn, type PackDeps } from "./turn";
import { actionsFor } from "./turn-actions";

async function markVerified(
  db: DbHandle,
  tenantId: string,
  conversationId: string,
  visitor: VerifiedVisitor,
) {
  await db.forTenant(tenantId, (tx) => markConversationVerified(tx, conversationId, visitor));
}

// One chat turn for any channel: the widget (its events as SSE), a messaging channel (its events collected
// into a reply) or a person taking over. The caller's guard has already decided who the tenant and the
// visitor are; what reaches this module is trusted. A turn has two halves so that a refusal (rate limit,
// budget, a conversation that is not the visitor's) can still be answered the caller's way before anything
// is streamed: `startTurn` stores the visitor's message and hands back an opened turn, whose `run` streams
// the answer into a sink and stores it.

/** What a turn needs from the world; tests pass their own database, packs and model client. */
export type TurnDeps = {
  db: DbHandle;
  env: Env;
  packs: PackDeps;
  /** The model client for a model; the process's shared clients (createModelClient) when absent. */
  modelClient?: (e: Env, model: string) => ModelClient;
  /** How long the answer's store is retried through an outage; STORE_RETRY when absent. */
  storeRetry?: StoreRetry;
  /**
   * Wakes the live streams of a conversation after a row was appended to its live log (the visitor wrote
   * while waiting for or talking with a person). Absent: the streams' slow re-read delivers it.
   */
  wakeLive?: (tenantId: string, conversationId: string) => void;
};

/** The tenant as the caller's guard read it (its row will do). */
export type TurnTenant = {
  id: string;
  name: string;
  bot: BotSettings;
  /** The tenant's own monthly token budget; null takes the operator's default. */
  monthlyTokenBudget: number | null;
  /** The tenant's own limits; the operator's where absent (limitSettings). */
  rateLimits: TenantRateLimits | null;
  /** Packs that ask for a verified visitor are offered only to one (absent: true, the column's default). */
  visitorIdentityRequired?: boolean;
};

export type TurnInput = {
  tenant: TurnTenant;
  /** Who is talking: the widget's visitor id, or a channel's id for the person (a phone number's hash, …). */
  visitorId: string;
  /** The visitor the host page vouched for (the widget's verified visitor); absent when anonymous. */
  visitor?: VerifiedVisitor;
  /** The address the visitor's per-address limit counts against; a channel has none: the person stands in. */
  ip?: string;
  /** The visitor's conversation to continue; absent starts a new one. */
  conversationId?: string;
  message: string;
  /** Answer this stored visitor message again instead of storing `message` (the widget's Retry). */
  retryOf?: string;
  /** Where the conversation happens, stored with it: the site's origin and page, or a channel's own name. */
  origin: string;
  pageUrl: string;
  /** The visitor's locale as stored with the conversation (cut at LOCALE_MAX characters). */
  locale: string;
  /** The language the answer is asked in: the locale's, else the bot's instructions decide. */
  lang?: Lang;
  /**
   * Rate limits for the statement that opens the turn (ratePointsForTurn), or null when the caller took them
   * already (the widget, which charges a request before reading its body). Absent: the turn takes its own.
   */
  limits?: TurnLimits | null;
  /** The version of a remembered tenant row the caller checked (known-tenants.ts); null: just read. */
  seen?: string | null;
  /**
   * The client can show a confirmation card with buttons (the widget, WhatsApp, Telegram). Without, calls of packs that act for
   * the visitor are denied and the model is told (a channel with no room for two buttons of its own).
   */
  buttons?: boolean;
};

/**
 * Where a turn's events go. The widget writes them as SSE; a channel collects the deltas into one reply. The
 * signal aborts when the receiver is gone (the visitor closed the widget), and the turn stops the model and
 * the packs; a receiver that cannot go away passes a signal that never aborts.
 */
export type TurnSink = { emit: Emit; signal: AbortSignal };

/** A turn whose visitor message is stored and whose stream slot is held, ready to run once. */
export type OpenedTurn = {
  conversationId: string;
  /** The stored visitor message the turn answers. */
  visitorMessageId: string;
  /**
   * Streams the turn into the sink: `start` first, then chips and deltas, then `done` or `error` (none when
   * the sink's signal aborted). Stores the answer and frees the stream slot. Never throws.
   */
  run(sink: TurnSink): Promise<LoopResult | null>;
  /** Frees the stream slot of a turn that will not run (the caller failed before streaming). */
  cancel(): void;
};

/**
 * Opens a turn: the stream slot, then one statement that takes the limits, checks the budget, stores the
 * visitor's message and reads the history and the packs. Throws an AppError for every refusal, with nothing
 * stored and the slot freed.
 */
export async function startTurn(deps: TurnDeps, input: TurnInput): Promise<OpenedTurn> {
  const e = deps.env;
  const status = modelStatus(e);
  if (!status.configured) {
    throw new AppError("model_not_configured", "The chat assistant is not available right now.");
  }
  const { tenant } = input;
  // The same limits for every channel: per visitor, per address, per business, and its concurrent turns.
  const settings = limitSettings(e, tenant.rateLimits);
  let limits = input.limits;
  if (limits === undefined) {
    const keys = { tenantId: tenant.id, visitorId: input.visitorId, ip: input.ip ?? input.visitorId };
    limits = await ratePointsForTurn(settings, keys);
    if (!limits) await takeRatePoints(settings, keys);
  }
  const lang = input.lang ?? langOf(input.locale);
  let release: (() => void) | undefined;
  const free = () => {
    release?.();
    release = undefined;
  };
  let start: Awaited<ReturnType<typeof openTurn>>;
  try {
    start = await openTurn(
      deps.db,
      {
        tenantId: tenant.id,
        visitorId: input.visitorId,
        conversationId: input.conversationId,
        origin: input.origin,
        pageUrl: input.pageUrl,
        locale: input.locale.slice(0, LOCALE_MAX),
        message: input.message,
        retryOf: input.retryOf,
        historyMaxChars: e.MICHI_HISTORY_MAX_CHARS,
        budget: tenant.monthlyTokenBudget ?? e.MICHI_DEFAULT_MONTHLY_TOKENS,
        limits,
        seen: input.seen ?? null,
      },
      {
        admit: () => {
          release = acquireStreamSlot(tenant.id, settings.maxStreams);
        },
        loadEnabled: deps.packs.loadEnabled,
      },
    );
  } catch (err) {
    free();
    throw err;
  }

  if (input.visitor) {
    // Who the verified visitor is, for the Inbox, the live console and webhooks: one more statement, only for
    // them. A failure here must not cost the visitor their answer.
    await markVerified(deps.db, tenant.id, start.conversationId, input.visitor).catch((err) =>
      log().warn({ err, tenantId: tenant.id }, "could not record the verified visitor"),
    );
  }
  if (start.live !== undefined) return liveTurn(deps, tenant.id, start, free);
  const opened = start;
  const verifiedOptional = tenant.visitorIdentityRequired === false;
  const enabled = offeredPacks(opened.enabled, !!input.visitor, !verifiedOptional);
  const model = resolveModel(tenant.bot, status.models);
  let ran = false;
  return {
    conversationId: opened.conversationId,
    visitorMessageId: opened.userMessageId,
    cancel: free,
    async run(sink) {
      if (ran) throw new Error("a turn runs once");
      ran = true;
      try {
        sink.emit({
          type: "start",
          data: { conversationId: opened.conversationId, visitorMessageId: opened.userMessageId },
        });
        const actions = await actionsFor(deps, input, { ...opened, enabled });
        return await executeTurn(
          {
            db: deps.db,
            env: e,
            client: (deps.modelClient ?? createModelClient)(e, model),
            model,
            ...modelProfile(e, model),
            packs: deps.packs,
            ...actions,
            tenant: { id: tenant.id, name: tenant.name, bot: tenant.bot },
            conversationId: opened.conversationId,
            liveVersion: opened.liveVersion,
            history: opened.history,
            message: opened.message,
            lang,
            log: log().child({ tenantId: tenant.id, conversationId: opened.conversationId }),
            storeRetry: deps.storeRetry,
            visitor: input.visitor,
            verifiedOptional,
          },
          sink.emit,
          sink.signal,
        );
      } finally {
        free();
      }
    },
  };
}

/**
 * The turn of a visitor who waits for or talks with a person: their message is stored and in the live log;
 * the stream says so (`start`, then `live`) and the person's console is woken. The model is not called.
 */
function liveTurn(
  deps: TurnDeps,
  tenantId: string,
  start: { conversationId: string; userMessageId: string },
  free: () => void,
): OpenedTurn {
  free();
  deps.wakeLive?.(tenantId, start.conversationId);
  let ran = false;
  return {
    conversationId: start.conversationId,
    visitorMessageId: start.userMessageId,
    cancel: () => {},
    async run(sink) {
      if (ran) throw new Error("a turn runs once");
      ran = true;
      const { conversationId } = start;
      sink.emit({ type: "start", data: { conversationId, visitorMessageId: start.userMessageId } });
      sink.emit({ type: "live", data: { conversationId } });
      return null;
    },
  };
}

/** A whole turn into a sink, for a caller with no answer of its own to give before the stream: a channel. */
export async function runTurn(deps: TurnDeps, input: TurnInput, sink: TurnSink): Promise<LoopResult | null> {
  return (await startTurn(deps, input)).run(sink);
}
