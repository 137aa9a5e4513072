import "server-only";
import type { ToolDefinition } from "../tools/contract";
import { type ModelAnswer, type ModelClient, postCompletion } from "./model-http";
import {
  type Adaptation,
  adaptationFor,
  type HttpFailure,
  isConnectionFailure,
  type Sent,
} from "./model-refusals";
import { readAnswer, resultOf } from "./model-stream";
import type { ModelFault, ModelMessage, ModelResult } from "./model-types";
import { learned, type Profile, toolsAccepted } from "./providers";
import { StreamAssembler } from "./stream-assembly";

// One streamed model call: the request shaped by the provider's profile, a refused parameter adapted once,
// 429/5xx retried within a short budget, and the answer read by model-stream.ts.

/** The most a visitor waits for 429/5xx retries in one call; a longer retry-after ends the turn at once. */
export const RETRY_BUDGET_MS = 3000;
const MAX_RETRIES = 2;
const MAX_ADAPTATIONS = 4;

export type CallOptions = {
  client: ModelClient;
  model: string;
  messages: ModelMessage[];
  tools?: ToolDefinition[];
  maxTokens: number;
  timeoutMs: number;
  idleTimeoutMs: number;
  /** A server that has not begun to answer within this long fails (absent: only the whole-call limit). */
  firstByteTimeoutMs?: number;
  signal: AbortSignal;
  onDelta: (text: string) => void;
  /** The server's profile; generic (max_tokens + stream_options) when absent. */
  profile?: Profile;
  /** Where learned adaptations are kept: the provider's base URL. */
  serverKey?: string;
};

const GENERIC_PROFILE: Profile = {
  preset: "generic",
  outputParam: "max_tokens",
  streamOptions: true,
  tools: true,
  echoReasoning: false,
  toolsAdvice: "",
};

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });

function outgoing(messages: ModelMessage[], echoReasoning: boolean): ModelMessage[] {
  if (echoReasoning) return messages;
  return messages.map((m) => {
    if (m.role !== "assistant" || !("reasoning_content" in m)) return m;
    const { reasoning_content: _r, ...rest } = m as ModelMessage & { reasoning_content?: string };
    return rest as ModelMessage;
  });
}

function apply(a: Adaptation, p: Profile, model: string, serverKey: string | undefined): Profile {
  const l = learned(serverKey, model);
  l.notes.push(a.note);
  switch (a.kind) {
    case "outputParam":
      l.outputParam = a.to;
      return { ...p, outputParam: a.to };
    case "streamOptions":
      l.streamOptions = false;
      return { ...p, streamOptions: false };
    case "echoReasoning":
      l.echoReasoning = a.on;
      return { ...p, echoReasoning: a.on };
    case "tools":
      l.tools = false;
      l.toolsRefused = a.reason;
      l.toolsAdvice = p.toolsAdvice || undefined;
      l.toolsRefusedAt = Date.now();
      return { ...p, tools: false };
  }
}

const faultOf = (f: HttpFailure): ModelFault => (f.status === 429 ? "model_busy" : "model_error");
const empty = (fault: ModelFault, extra: Partial<ModelResult> = {}): ModelResult => ({
  text: "",
  reasoning: "",
  toolCalls: [],
  usage: null,
  generated: false,
  fault,
  ...extra,
});

/** The request the profile allows, and what it sent (for adaptationFor to read a refusal against). */
function requestFor(o: CallOptions, profile: Profile, hasReasoning: boolean) {
  const withTools = profile.tools && o.tools !== undefined && o.tools.length > 0;
  const sent: Sent = {
    outputParam: profile.outputParam,
    streamOptions: profile.streamOptions,
    tools: withTools,
    echoedReasoning: profile.echoReasoning && hasReasoning,
    hasReasoning,
  };
  const body = {
    model: o.model,
    messages: outgoing(o.messages, profile.echoReasoning),
    ...(withTools ? { tools: o.tools } : {}),
    [profile.outputParam]: o.maxTokens,
    stream: true as const,
    ...(profile.streamOptions ? { stream_options: { include_usage: true } } : {}),
  };
  return { sent, body, withTools };
}

/**
 * One call's cut-offs: the whole-call timeout, the idle timeout between reads and the visitor going away. The
 * first one to fire is the call's fault and aborts `signal`.
 */
function callLimits(o: CallOptions) {
  const ctrl = new AbortController();
  let fault: ModelFault | null = null;
  const stop = (why: ModelFault) => {
    fault ??= why;
    ctrl.abort(new Error(why));
  };
  const onVisitorGone = () => stop("disconnected");
  o.signal.addEventListener("abort", onVisitorGone, { once: true });
  const total = setTimeout(() => stop("model_timeout"), o.timeoutMs);
  // A hung server sends nothing at all; the visitor is told within this, not after the whole-call limit.
  const firstByte = o.firstByteTimeoutMs
    ? setTimeout(() => stop("first_byte_timeout"), o.firstByteTimeoutMs)
    : undefined;
  let idle: ReturnType<typeof setTimeout> | undefined;
  return {
    signal: ctrl.signal,
    fault: () => fault,
    /** Restarts the idle timer: called when the answer starts and on every read. */
    armIdle() {
      clearTimeout(firstByte);
      clearTimeout(idle);
      idle = setTimeout(() => stop("idle_timeout"), o.idleTimeoutMs);
    },
    clear() {
      clearTimeout(total);
      clearTimeout(firstByte);
      clearTimeout(idle);
      o.signal.removeEventListener("abort", onVisitorGone);
    },
  };
}

type Limits = ReturnType<typeof callLimits>;

/**
 * Sends the request until the server answers: a refused parameter is adapted (at most MAX_ADAPTATIONS
 * times), 429 and 5xx are retried while the wait fits RETRY_BUDGET_MS. Answers the stream, or the fault the
 * call ends with. Throws when the call is aborted or the failure is not the server's.
 */
async function connect(
  o: CallOptions,
  limits: Limits,
  dropped: (reason: string) => void,
  refused: (f: HttpFailure) => void = () => {},
): Promise<ModelAnswer | ModelFault> {
  let profile = o.profile ?? GENERIC_PROFILE;
  let waited = 0;
  let retries = 0;
  let adaptations = 0;
  const hasReasoning = o.messages.some((m) => "reasoning_content" in m);
  for (;;) {
    const { sent, body, withTools } = requestFor(o, profile, hasReasoning);
    let f: HttpFailure;
    try {
      const answer = await postCompletion(o.client, body, limits.signal);
      if (answer.kind === "answer") {
        if (withTools) toolsAccepted(o.serverKey, o.model);
        return answer;
      }
      f = answer.failure;
    } catch (err) {
      if (limits.fault() || !isConnectionFailure(err)) throw err;
      f = { status: 503, text: "", retryAfterMs: null };
    }
    const a = adaptationFor(f, sent);
    if (a && adaptations < MAX_ADAPTATIONS) {
      adaptations++;
      profile = apply(a, profile, o.model, o.serverKey);
      if (a.kind === "tools") dropped(a.reason);
      continue;
    }
    refused(f);
    if (f.status !== 429 && f.status < 500) return faultOf(f);
    // 429 and 5xx: retry only when the wait fits what a visitor will sit through.
    const wait = f.retryAfterMs ?? 250 * 2 ** retries;
    if (retries >= MAX_RETRIES || waited + wait > RETRY_BUDGET_MS) return faultOf(f);
    retries++;
    waited += wait;
    await sleep(wait, limits.signal);
    const cut = limits.fault();
    if (cut) return cut;
  }
}

/** One streamed model call; never throws: how it ended is the result's `fault`. */
export async function streamCompletion(o: CallOptions): Promise<ModelResult> {
  if (o.signal.aborted) return empty("disconnected");
  const limits = callLimits(o);
  let toolsDropped: string | null = null;
  let failure: { status: number; text: string } | null = null;
  const asm = new StreamAssembler();
  let fault: ModelFault | null = null;
  try {
    const res = await connect(
      o,
      limits,
      (reason) => {
        toolsDropped = reason;
      },
      (f) => {
        failure = { status: f.status, text: f.text };
      },
    );
    if (typeof res === "string") {
      limits.clear();
      return { ...empty(res), toolsDropped, failure };
    }
    limits.armIdle();
    await readAnswer(res, asm, o.onDelta, limits.armIdle);
  } catch {
    // Aborts and broken connections land here; the assembled state says what arrived.
  }
  fault = limits.fault() ?? (limits.signal.aborted ? "disconnected" : null);
  limits.clear();
  return { ...resultOf(asm, fault), toolsDropped };
}
