import "server-only";
import type { TenantTx } from "../db/client";
import { audit } from "../db/queries/audit";
import { findVisitorConversation, listMessages } from "../db/queries/conversations";
import { listPackConfigs } from "../db/queries/packs";
import { findCall, finishCall, moveCall, type PendingCall } from "../db/queries/pending-calls";
import type { VerifiedVisitor } from "../db/schema";
import { AppError } from "../errors";
import { log } from "../log";
import { LIMITS, takeOrRefuse } from "../security/limits";
import type { Lang } from "../tools/contract";
import { offeredPacks } from "../tools/runtime";
import { decisionMessages, platformRecord, proposeIn, told } from "./confirm-round";
import { boundHistory } from "./history";
import { acquireStreamSlot, limitSettings } from "./limits";
import type { LoopResult, ToolRunRecord } from "./loop";
import { createModelClient, modelProfile, modelStatus, resolveModel } from "./model";
import type { TurnDeps, TurnSink, TurnTenant } from "./run-turn";
import { executeTurn } from "./turn";

// The visitor's tap on a confirmation card (confirm-round.ts). Confirm moves the stored call from pending to
// running in one conditional update, so a double tap, a second tab or two instances run the pack once; the
// pack runs with the call's stored idempotency key; its result is stored and the model gets a new round
// with it, streamed to the visitor. Cancel, or a tap after 10 minutes, runs nothing and the model is told
// "declined by the visitor" or "expired". Everything is read from the database, so a restart between the
// card and the tap changes nothing. Typed words never reach here: only this tap, by the call's id.

export type Decision = "confirm" | "cancel";

export type DecisionInput = {
  tenant: TurnTenant;
  visitorId: string;
  conversationId: string;
  /** The stored call's id (the card's callId), never the model's. */
  callId: string;
  decision: Decision;
  lang?: Lang;
  /** The verified visitor (the widget's identity header), for packs that act for a known person. */
  visitor?: VerifiedVisitor;
};

export type OpenedDecision = {
  run(sink: TurnSink): Promise<LoopResult | null>;
  cancel(): void;
};

const gone = () => new AppError("not_found", "This request is not available.");

type Decided = { row: PendingCall; how: "running" | "declined" | "expired"; liveVersion: number };

/** The one statement that decides: the call must be this visitor's, in this conversation, and still open. */
async function decideIn(tx: TenantTx, input: DecisionInput, now: Date): Promise<Decided> {
  const { tenant, conversationId, callId } = input;
  const conv = await findVisitorConversation(tx, conversationId, input.visitorId);
  // Another visitor's conversation, or a call of another conversation, looks exactly like a missing one.
  const found = conv ? await findCall(tx, conversationId, callId) : null;
  if (!conv || !found) throw gone();
  if (conv.liveState !== "bot")
    throw new AppError("conflict", "A person is looking after this conversation now, so this was not sent.");
  if (found.status !== "pending") throw new AppError("conflict", "This request was already answered.");
  const to = input.decision === "confirm" ? "running" : "declined";
  let row = await moveCall(tx, conversationId, callId, to, now);
  let how: Decided["how"] = to;
  if (!row) {
    row = await moveCall(tx, conversationId, callId, "expired", now);
    how = "expired";
  }
  if (!row) throw new AppError("conflict", "This request was already answered.");
  await audit(tx, {
    tenantId: tenant.id,
    actor: null,
    action: how === "running" ? "action.confirmed" : how === "expired" ? "action.expired" : "action.declined",
    target: row.id,
    details: { pack: row.packId, conversationId, title: row.card.title, by: "visitor" },
  });
  return { row, how, liveVersion: conv.liveVersion };
}

/**
 * Checks and records the visitor's decision, then hands back the round to stream. Throws an AppError for
 * every refusal (not this visitor's, already decided, a person has the conversation, too many confirmed
 * calls), with nothing run.
 */
export async function startDecision(deps: TurnDeps, input: DecisionInput): Promise<OpenedDecision> {
  const e = deps.env;
  const status = modelStatus(e);
  if (!status.configured)
    throw new AppError("model_not_configured", "The chat assistant is not available right now.");
  const { tenant } = input;
  if (input.decision === "confirm") {
    await takeOrRefuse(
      LIMITS.confirmedPerVisitor,
      `${tenant.id}:${input.visitorId}`,
      "You have confirmed many requests in a short time.",
    );
    await takeOrRefuse(
      LIMITS.confirmedPerBusiness,
      tenant.id,
      "This business has received many requests just now.",
    );
  }
  const now = new Date();
  const read = await deps.db.forTenant(tenant.id, async (tx) => {
    const decided = await decideIn(tx, input, now);
    return {
      ...decided,
      messages: await listMessages(tx, input.conversationId),
      packRows: decided.how === "running" ? await listPackConfigs(tx) : [],
    };
  });
  const release = acquireStreamSlot(tenant.id, limitSettings(e, tenant.rateLimits).maxStreams);
  const model = resolveModel(tenant.bot, status.models);
  const turnLog = log().child({ tenantId: tenant.id, conversationId: input.conversationId });
  const verifiedOptional = tenant.visitorIdentityRequired === false;
  let ran = false;
  return {
    cancel: release,
    async run(sink) {
      if (ran) throw new Error("a decision runs once");
      ran = true;
      try {
        const rows = read.packRows.filter((r) => r.enabled);
        const all = await deps.packs.loadEnabled(
          rows.map((r) => ({ ...r, updatedAt: r.updatedAt.toISOString() })),
          tenant.id,
        );
        const offered = offeredPacks(all, !!input.visitor, !verifiedOptional);
        const enabled = tenant.bot.actionsOff ? offered.filter((p) => !p.pack.confirm) : offered;
        const label = (packId: string) => {
          const p = all.find((x) => x.pack.id === packId);
          return p ? deps.packs.chipLabel(p.pack, input.lang) : packId;
        };
        const record =
          read.how === "running"
            ? await runConfirmed(deps, input, read.row, enabled, label(read.row.packId), sink)
            : platformRecord(
                { id: read.row.callId, packId: read.row.packId, args: read.row.args },
                label(read.row.packId),
                told(read.how === "expired" ? "expired" : "declined"),
              );
        const newestFirst = [...read.messages].reverse();
        return await executeTurn(
          {
            db: deps.db,
            env: e,
            client: (deps.modelClient ?? createModelClient)(e, model),
            model,
            ...modelProfile(e, model),
            packs: deps.packs,
            enabled,
            tenant: { id: tenant.id, name: tenant.name, bot: tenant.bot },
            conversationId: input.conversationId,
            liveVersion: read.liveVersion,
            history: boundHistory(newestFirst, e.MICHI_HISTORY_MAX_CHARS),
            message: null,
            decided: decisionMessages(read.row, record.result),
            decidedRuns: [record],
            propose: proposeIn(deps.db, {
              tenantId: tenant.id,
              conversationId: input.conversationId,
              visitorMessageId: read.row.visitorMessageId,
              lang: input.lang,
            }),
            lang: input.lang,
            log: turnLog,
            storeRetry: deps.storeRetry,
            visitor: input.visitor,
            verifiedOptional,
          },
          sink.emit,
          sink.signal,
        );
      } finally {
        release();
      }
    },
  };
}

/** Runs the confirmed call once, with its stored idempotency key, and stores what came of it. */
async function runConfirmed(
  deps: TurnDeps,
  input: DecisionInput,
  row: PendingCall,
  enabled: Parameters<TurnDeps["packs"]["runTool"]>[0]["enabled"],
  label: string,
  sink: TurnSink,
): Promise<ToolRunRecord> {
  sink.emit({ type: "chip", data: { callId: row.callId, label, state: "start" } });
  const record = await deps.packs.runTool({
    call: { id: row.callId, name: row.packId, arguments: JSON.stringify(row.args) },
    enabled,
    ctx: {
      tenantId: input.tenant.id,
      conversationId: input.conversationId,
      // The visitor closing the panel must not cut a write that is under way: it ends on its own timeout.
      signal: new AbortController().signal,
      log: log().child({ tenantId: input.tenant.id, conversationId: input.conversationId }),
      lang: input.lang,
      idempotencyKey: row.idempotencyKey,
      bookings: deps.packs.bookings,
      ...(input.visitor ? { visitor: input.visitor } : {}),
    },
    verifiedOptional: input.tenant.visitorIdentityRequired === false,
    timeoutMs: deps.env.MICHI_TOOL_TIMEOUT_MS,
    maxChars: deps.env.MICHI_TOOL_RESULT_MAX_CHARS,
  });
  const ok = record.outcome === "ok";
  await deps.db.forTenant(input.tenant.id, (tx) =>
    finishCall(tx, row.id, { ok, result: record.result, outcome: record.outcome }),
  );
  sink.emit({ type: "chip", data: { callId: row.callId, label, state: ok ? "done" : "error" } });
  return record;
}
