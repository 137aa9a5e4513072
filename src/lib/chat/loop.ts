import "server-only";
import type { MessageStatus } from "../db/schema";
import type { Logger } from "../log";
import type { Lang, ToolDefinition, ToolPack, ToolVisitor } from "../tools/contract";
import type { KnowledgeSearcher } from "../tools/knowledge-search";
import type { EnabledPack, ToolCallInput, ToolRunRecord } from "../tools/runtime";
import { type ProposeCall, proposeCall } from "./confirm-round";
import type { Emit } from "./events";
import { streamCompletion } from "./model-call";
import type { ModelClient } from "./model-http";
import type { ModelFault, ModelMessage, ToolCall, Usage } from "./model-types";
import type { Profile } from "./providers";

// The tool loop of one turn. Everything it needs arrives as arguments (no module state), so concurrent turns
// never share anything and tests can hand it their own packs and runner.

export type { EnabledPack, ToolRunRecord };

/** The pack wrapper's signature (runToolCall in src/lib/tools/runtime.ts); tests may pass a stand-in. */
export type RunTool = (input: ToolCallInput) => Promise<ToolRunRecord>;

export type LoopDeps = {
  client: ModelClient;
  model: string;
  enabled: EnabledPack[];
  tools: ToolDefinition[];
  runTool: RunTool;
  chipLabel: (pack: ToolPack, lang?: Lang) => string;
  maxRounds: number;
  maxTokens: number;
  timeoutMs: number;
  idleTimeoutMs: number;
  firstByteTimeoutMs?: number;
  toolTimeoutMs: number;
  toolMaxChars: number;
  /** The model server's profile (generic when absent) and where its learned adaptations are kept. */
  profile?: Profile;
  serverKey?: string;
  /**
   * Shows a confirmation card for a call of a pack with `confirm` (confirm-round.ts). Absent on a channel
   * without buttons: such calls are denied and the model is told.
   */
  propose?: ProposeCall;
};

export type TurnCtx = {
  tenantId: string;
  conversationId: string;
  lang?: Lang;
  /** Aborts when the visitor goes away. */
  signal: AbortSignal;
  log: Logger;
  knowledge?: KnowledgeSearcher;
  /** The verified visitor, handed to the packs; absent for an anonymous one. */
  visitor?: ToolVisitor;
  /** The business lets packs that ask for a verified visitor run without one. */
  verifiedOptional?: boolean;
};

export type LoopReason = ModelFault | "round_cap" | "empty";

export type LoopResult = {
  text: string;
  status: MessageStatus;
  reason: LoopReason | null;
  usage: Usage;
  /** True when some round's usage was estimated because the provider generated but never reported it. */
  usageEstimated: boolean;
  /** The server refused tools in this turn, in its own words; the turn answered without them. */
  toolsDropped?: string | null;
  runs: ToolRunRecord[];
  rounds: number;
  /** The turn ended on a confirmation card: the answer may be empty, the visitor's tap continues it. */
  carded?: boolean;
};

const approxTokens = (chars: number) => Math.ceil(chars / 4);

function estimateUsage(messages: ModelMessage[], tools: ToolDefinition[] | undefined, out: string): Usage {
  return {
    promptTokens: approxTokens(JSON.stringify(messages).length + JSON.stringify(tools ?? []).length),
    completionTokens: approxTokens(out.length),
  };
}

export async function runLoop(
  deps: LoopDeps,
  ctx: TurnCtx,
  initial: ModelMessage[],
  emit: Emit,
): Promise<LoopResult> {
  const messages = [...initial];
  const usage: Usage = { promptTokens: 0, completionTokens: 0 };
  const runs: ToolRunRecord[] = [];
  let usageEstimated = false;
  let text = "";
  let reason: LoopReason | null = null;
  let rounds = 0;
  let toolsDropped: string | null = null;
  let carded = false;

  for (let round = 0; round < deps.maxRounds; round++) {
    rounds = round + 1;
    // The last allowed round is offered no tools, so the model has to answer with what it has.
    const last = round === deps.maxRounds - 1;
    const tools = last || deps.tools.length === 0 ? undefined : deps.tools;
    const res = await streamCompletion({
      client: deps.client,
      model: deps.model,
      messages,
      tools,
      maxTokens: deps.maxTokens,
      timeoutMs: deps.timeoutMs,
      idleTimeoutMs: deps.idleTimeoutMs,
      firstByteTimeoutMs: deps.firstByteTimeoutMs,
      signal: ctx.signal,
      onDelta: (t) => emit({ type: "delta", data: { text: t } }),
      profile: deps.profile,
      serverKey: deps.serverKey,
    });
    text += res.text;
    toolsDropped ??= res.toolsDropped ?? null;
    if (res.usage) {
      usage.promptTokens += res.usage.promptTokens;
      usage.completionTokens += res.usage.completionTokens;
    } else if (res.generated) {
      // Providers bill cut-short answers too; an estimate keeps the budget honest. A request refused before
      // anything was generated costs nothing, so it is not estimated at all.
      const est = estimateUsage(messages, tools, res.text + JSON.stringify(res.toolCalls));
      usage.promptTokens += est.promptTokens;
      usage.completionTokens += est.completionTokens;
      usageEstimated = true;
    }
    if (res.fault) {
      reason = res.fault;
      break;
    }
    if (res.toolCalls.length === 0) break;
    if (last) {
      // Offered no tools, the model still asked for one: stop here rather than loop on.
      reason = text.trim() ? null : "round_cap";
      break;
    }

    messages.push(assistantToolMessage(res.text, res.reasoning, res.toolCalls));
    const cards = { carded: false };
    const records = await Promise.all(res.toolCalls.map((call) => runOne(deps, ctx, call, emit, cards)));
    runs.push(...records);
    if (cards.carded) {
      // Nothing more this turn: the visitor's Confirm or Cancel starts the next round (decide-turn.ts).
      carded = true;
      break;
    }
    for (const r of records) messages.push({ role: "tool", tool_call_id: r.callId, content: r.result });
    if (ctx.signal.aborted) {
      reason = "disconnected";
      break;
    }
  }

  const hasText = text.trim().length > 0;
  if (!reason && !hasText && !carded) reason = "empty";
  const status: MessageStatus = !reason ? "complete" : hasText && reason !== "empty" ? "partial" : "failed";
  if (status === "complete") reason = null;
  return {
    text,
    status,
    reason,
    usage,
    usageEstimated,
    runs,
    rounds,
    toolsDropped,
    ...(carded ? { carded } : {}),
  };
}

/**
 * The assistant's tool-call message as the next round must see it: each call's extra_content (Gemini 3's
 * thought_signature) goes back with it, and the round's thinking rides along as reasoning_content (DeepSeek's
 * thinking mode refuses the follow-up without it; model-call.ts strips it for servers that do not want it).
 */
function assistantToolMessage(text: string, reasoning: string, calls: ToolCall[]): ModelMessage {
  return {
    role: "assistant",
    content: text || null,
    tool_calls: calls.map((c) => ({
      id: c.id,
      type: "function" as const,
      function: { name: c.name, arguments: c.arguments },
      ...(c.extraContent !== undefined ? { extra_content: c.extraContent } : {}),
    })),
    ...(reasoning ? { reasoning_content: reasoning } : {}),
  } as ModelMessage;
}

async function runOne(
  deps: LoopDeps,
  ctx: TurnCtx,
  call: ToolCall,
  emit: Emit,
  round: { carded: boolean },
): Promise<ToolRunRecord> {
  // Same lookup as the pack wrapper: the tool name is the pack id.
  const owner = deps.enabled.find((e) => e.pack.id === call.name);
  const label = owner ? deps.chipLabel(owner.pack, ctx.lang) : null;
  // A pack that acts for the visitor never runs here: it waits for their Confirm.
  if (owner?.pack.confirm) return proposeCall(deps.propose, call, owner, label ?? call.name, round, emit);
  // Unknown tool names get no chip: there is nothing honest to show the visitor.
  if (label) emit({ type: "chip", data: { callId: call.id, label, state: "start" } });
  const record = await deps.runTool({
    call,
    enabled: deps.enabled,
    ctx: {
      tenantId: ctx.tenantId,
      conversationId: ctx.conversationId,
      signal: ctx.signal,
      log: ctx.log,
      lang: ctx.lang,
      knowledge: ctx.knowledge,
      ...(ctx.visitor ? { visitor: ctx.visitor } : {}),
    },
    verifiedOptional: ctx.verifiedOptional,
    timeoutMs: deps.toolTimeoutMs,
    maxChars: deps.toolMaxChars,
  });
  if (label) {
    emit({
      type: "chip",
      data: { callId: call.id, label, state: record.outcome === "ok" ? "done" : "error" },
    });
  }
  if (owner?.pack.ui === "contact_form" && record.outcome === "ok") emit({ type: "handoff", data: {} });
  return record;
}

/** A message for the visitor, by why the answer stopped. Never internals. */
export function visitorMessage(reason: LoopReason): string {
  switch (reason) {
    case "model_busy":
      return "The assistant is very busy right now. Please try again in a minute.";
    case "model_error":
      return "The assistant is having trouble right now. Please try again in a moment.";
    case "model_timeout":
    case "idle_timeout":
    case "first_byte_timeout":
      return "The assistant took too long to answer. Please try again.";
    case "interrupted":
      return "The answer was interrupted. Please try again.";
    case "length":
      return "The answer was cut short because it got too long. Please ask a narrower question.";
    case "content_filter":
      return "The answer was stopped by a content filter. Please rephrase your question.";
    case "disconnected":
      return "The connection was closed.";
    case "round_cap":
    case "empty":
      return "Sorry, I couldn't find an answer to that. Could you rephrase your question?";
  }
}
