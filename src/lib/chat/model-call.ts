import "server-only";
import { createParser } from "eventsource-parser";
import type { ToolDefinition } from "../tools/contract";
import { type ModelAnswer, type ModelClient, postCompletion } from "./model-http";
import {
  type Adaptation,
  adaptationFor,
  type HttpFailure,
  isConnectionFailure,
  type Sent,
} from "./model-refusals";
import type { ModelFault, ModelMessage, ModelResult } from "./model-types";
import { learned, type Profile, toolsAccepted } from "./providers";
import { StreamAssembler, streamEnd } from "./stream-assembly";

// One streamed model call: the request shaped by the provider's profile, a refused parameter adapted once,
// 429/5xx retried within a short budget, and the raw event stream assembled by stream-assembly.ts.
// Reading the SSE here (not through an SDK's iterator) is what lets a missing [DONE] and llama.cpp's
// `error:` line be seen at all.

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

export async function streamCompletion(o: CallOptions): Promise<ModelResult> {
  if (o.signal.aborted) return empty("disconnected");
  const ctrl = new AbortController();
  let fault: ModelFault | null = null;
  const stop = (why: ModelFault) => {
    fault ??= why;
    ctrl.abort(new Error(why));
  };
  const onVisitorGone = () => stop("disconnected");
  o.signal.addEventListener("abort", onVisitorGone, { once: true });
  const total = setTimeout(() => stop("model_timeout"), o.timeoutMs);
  let idle: ReturnType<typeof setTimeout> | undefined;
  const armIdle = () => {
    clearTimeout(idle);
    idle = setTimeout(() => stop("idle_timeout"), o.idleTimeoutMs);
  };

  let profile = o.profile ?? GENERIC_PROFILE;
  let toolsDropped: string | null = null;
  const asm = new StreamAssembler();
  try {
    let res: ModelAnswer | null = null;
    let waited = 0;
    let retries = 0;
    let adaptations = 0;
    const hasReasoning = o.messages.some((m) => "reasoning_content" in m);
    while (!res) {
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
      let f: HttpFailure;
      try {
        const answer = await postCompletion(o.client, body, ctrl.signal);
        if (answer.kind === "answer") {
          res = answer;
          if (withTools) toolsAccepted(o.serverKey, o.model);
          break;
        }
        f = answer.failure;
      } catch (err) {
        if (fault || !isConnectionFailure(err)) throw err;
        f = { status: 503, text: "", retryAfterMs: null };
      }
      const a = adaptationFor(f, sent);
      if (a && adaptations < MAX_ADAPTATIONS) {
        adaptations++;
        profile = apply(a, profile, o.model, o.serverKey);
        if (a.kind === "tools") toolsDropped = a.reason;
        continue;
      }
      if (f.status !== 429 && f.status < 500) return finish(empty(faultOf(f)));
      // 429 and 5xx: retry only when the wait fits what a visitor will sit through.
      const wait = f.retryAfterMs ?? 250 * 2 ** retries;
      if (retries >= MAX_RETRIES || waited + wait > RETRY_BUDGET_MS) return finish(empty(faultOf(f)));
      retries++;
      waited += wait;
      await sleep(wait, ctrl.signal);
      if (fault) return finish(empty(fault));
    }

    armIdle();
    const parser = createParser({
      onEvent: (ev) => {
        if (ev.data === "[DONE]") return asm.done();
        let chunk: unknown;
        try {
          chunk = JSON.parse(ev.data);
        } catch {
          return; // a keep-alive or garbage line; the idle timer still watches the stream
        }
        if (ev.event === "error") return asm.fail(chunk);
        const shown = asm.push(chunk);
        if (shown) o.onDelta(shown);
      },
      // llama-server reports a failure mid-stream as a non-standard `error: {...}` field.
      onError: (e) => {
        if (e.type === "unknown-field" && e.field === "error") {
          let payload: unknown = e.value;
          try {
            payload = JSON.parse(e.value ?? "");
          } catch {
            // kept as text
          }
          asm.fail(payload && typeof payload === "object" && "error" in payload ? payload.error : payload);
        }
      },
    });
    if (res.json) {
      // A server that ignores `stream: true` answers with one whole completion; it reads the same way.
      const shown = asm.push(await res.body.json());
      if (shown) o.onDelta(shown);
      asm.done();
    } else {
      // A character split across two reads stays whole (stream: true).
      const dec = new TextDecoder();
      for await (const part of res.body) {
        armIdle();
        parser.feed(dec.decode(part as Uint8Array, { stream: true }));
      }
    }
  } catch {
    // Aborts and broken connections land here; the assembled state says what arrived.
    if (!fault && ctrl.signal.aborted) fault = "disconnected";
  }
  return finish(null);

  function finish(early: ModelResult | null): ModelResult {
    clearTimeout(total);
    clearTimeout(idle);
    o.signal.removeEventListener("abort", onVisitorGone);
    if (early) return { ...early, toolsDropped };
    const a = asm.result();
    const end = streamEnd(a);
    let why: ModelFault | null = fault;
    if (!why && end) {
      why =
        end === "stream_error"
          ? a.error?.status === 429 || /rate|overload|busy/i.test(String(a.error?.code ?? a.error?.message))
            ? "model_busy"
            : "model_error"
          : end;
    }
    return {
      text: a.text,
      reasoning: a.reasoning,
      toolCalls: a.toolCalls,
      usage: a.usage,
      generated: a.generated,
      fault: why,
      toolsDropped,
    };
  }
}
