import "server-only";
import OpenAI, { APIError } from "openai";
import type { BotSettings } from "../db/schema";
import { env } from "../env";
import type { ToolDefinition } from "../tools/contract";

export type ModelStatus =
  | { configured: true; models: string[]; defaultModel: string }
  | { configured: false; reason: string };

/** Whether visitors can chat at all, and if not, a reason written for the admin overview. */
export function modelStatus(e = env()): ModelStatus {
  if (!e.OPENAI_BASE_URL && !e.OPENAI_API_KEY) {
    return {
      configured: false,
      reason: "No model provider is configured: the operator must set OPENAI_API_KEY or OPENAI_BASE_URL.",
    };
  }
  const [first] = e.MICHI_MODELS;
  if (!first) {
    return {
      configured: false,
      reason: "No model is allowed: the operator must list models in MICHI_MODELS.",
    };
  }
  return { configured: true, models: [...e.MICHI_MODELS], defaultModel: first };
}

/** The tenant's chosen model when the operator still allows it, else the operator's first model. */
export function resolveModel(bot: BotSettings, models: readonly string[]): string {
  if (bot.model && models.includes(bot.model)) return bot.model;
  const [first] = models;
  if (!first) throw new Error("resolveModel: no models allowed");
  return first;
}

export function createModelClient(e = env()): OpenAI {
  return new OpenAI({
    // Self-hosted OpenAI-compatible servers often need no key, but the SDK insists on one.
    apiKey: e.OPENAI_API_KEY ?? "not-needed",
    baseURL: e.OPENAI_BASE_URL,
    maxRetries: 2,
    timeout: e.MICHI_MODEL_TIMEOUT_MS,
  });
}

export type ModelMessage = OpenAI.ChatCompletionMessageParam;
export type ToolCall = { id: string; name: string; arguments: string };
export type Usage = { promptTokens: number; completionTokens: number };

/** Why a model call ended early. */
export type ModelFault =
  | "model_busy" // 429 after the SDK's retries
  | "model_error" // 5xx or another refusal after retries
  | "model_timeout" // the whole call took longer than MICHI_MODEL_TIMEOUT_MS
  | "idle_timeout" // no chunk for MICHI_MODEL_IDLE_TIMEOUT_MS
  | "interrupted" // the connection broke mid-stream
  | "disconnected"; // the visitor went away

export type ModelResult = {
  text: string;
  toolCalls: ToolCall[];
  /** As reported by the provider; null when the stream ended before the usage chunk. */
  usage: Usage | null;
  fault: ModelFault | null;
};

export type CallOptions = {
  client: OpenAI;
  model: string;
  messages: ModelMessage[];
  tools?: ToolDefinition[];
  maxTokens: number;
  timeoutMs: number;
  idleTimeoutMs: number;
  signal: AbortSignal;
  onDelta: (text: string) => void;
};

function classify(err: unknown): ModelFault {
  if (err instanceof APIError && typeof err.status === "number") {
    return err.status === 429 ? "model_busy" : "model_error";
  }
  return "interrupted";
}

/**
 * One streamed model call. Never throws for faults of the world: it returns what arrived and why it stopped.
 * The SDK's own timeout stops at response headers, so an idle timer between chunks is kept here.
 */
export async function streamCompletion(o: CallOptions): Promise<ModelResult> {
  const ctrl = new AbortController();
  let fault: ModelFault | null = null;
  const stop = (why: ModelFault) => {
    fault ??= why;
    ctrl.abort(new Error(why));
  };
  const onVisitorGone = () => stop("disconnected");
  if (o.signal.aborted) return { text: "", toolCalls: [], usage: null, fault: "disconnected" };
  o.signal.addEventListener("abort", onVisitorGone, { once: true });
  const total = setTimeout(() => stop("model_timeout"), o.timeoutMs);
  let idle: ReturnType<typeof setTimeout> | undefined;
  const armIdle = () => {
    clearTimeout(idle);
    idle = setTimeout(() => stop("idle_timeout"), o.idleTimeoutMs);
  };

  let text = "";
  let usage: Usage | null = null;
  const calls: { id?: string; name: string; arguments: string }[] = [];
  try {
    const stream = await o.client.chat.completions.create(
      {
        model: o.model,
        messages: o.messages,
        ...(o.tools && o.tools.length > 0 ? { tools: o.tools as OpenAI.ChatCompletionTool[] } : {}),
        max_tokens: o.maxTokens,
        stream: true,
        stream_options: { include_usage: true },
      },
      { signal: ctrl.signal, timeout: o.timeoutMs },
    );
    armIdle();
    for await (const chunk of stream) {
      armIdle();
      if (chunk.usage) {
        usage = { promptTokens: chunk.usage.prompt_tokens, completionTokens: chunk.usage.completion_tokens };
      }
      const delta = chunk.choices[0]?.delta;
      if (delta?.content) {
        text += delta.content;
        o.onDelta(delta.content);
      }
      for (const tc of delta?.tool_calls ?? []) {
        calls[tc.index] ??= { name: "", arguments: "" };
        const c = calls[tc.index]!;
        if (tc.id) c.id = tc.id;
        if (tc.function?.name) c.name += tc.function.name;
        if (tc.function?.arguments) c.arguments += tc.function.arguments;
      }
    }
    // An aborted stream ends quietly rather than throwing; the abort reason was recorded by `stop`.
  } catch (err) {
    if (!fault) fault = ctrl.signal.aborted ? "disconnected" : classify(err);
  } finally {
    clearTimeout(total);
    clearTimeout(idle);
    o.signal.removeEventListener("abort", onVisitorGone);
  }
  const toolCalls = calls
    .filter((c) => c !== undefined)
    .map((c, i) => ({ id: c.id ?? `call_${i}`, name: c.name, arguments: c.arguments }));
  return { text, toolCalls, usage, fault };
}
