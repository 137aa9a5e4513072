import "server-only";
import type OpenAI from "openai";
import type { BotSettings } from "../db/schema";
import { type Env, env } from "../env";
import { type ModelClient, modelClient } from "./model-http";
import { allowedModels, defaultProvider, type Profile, profileFor, providerFor } from "./providers";

export type ModelStatus =
  | { configured: true; models: string[]; defaultModel: string }
  | { configured: false; reason: string; missing: string[] };

// Env values are read once per process, so a change to .env.local or the environment needs a restart.
const RESTART = "Set them in .env.local or the environment, then restart michi-chat.";

/** Whether visitors can chat at all, and if not, which variables are missing, written for the admin. */
export function modelStatus(e = env()): ModelStatus {
  const noProvider = !defaultProvider(e) && (e.providers ?? []).length === 0;
  const models = allowedModels(e);
  const [first] = models;
  if (!noProvider && first) return { configured: true, models, defaultModel: first };
  const missing = [
    ...(noProvider ? ["OPENAI_BASE_URL (or OPENAI_API_KEY for OpenAI itself)"] : []),
    ...(first ? [] : ["MICHI_MODELS (the models businesses may use, comma-separated)"]),
  ];
  const what = noProvider ? "No model provider is configured" : "No model is allowed";
  return {
    configured: false,
    missing,
    reason: `${what}: the operator must set ${missing.join(" and ")}. ${RESTART}`,
  };
}

/** The tenant's chosen model when the operator still allows it, else the operator's first model. */
export function resolveModel(bot: BotSettings, models: readonly string[]): string {
  if (bot.model && models.includes(bot.model)) return bot.model;
  const [first] = models;
  if (!first) throw new Error("resolveModel: no models allowed");
  return first;
}

// Clients by provider settings, reused by every turn: each holds the keep-alive pool to its server, so the
// rounds and turns of every visitor share warm connections.
const clients = globalThis as unknown as { __michiModelClients?: Map<string, ModelClient> };

/** A client for the provider that serves `model` (the default provider when no named one lists it). */
export function createModelClient(e = env(), model?: string): ModelClient {
  const p = (model ? providerFor(e, model) : null) ?? defaultProvider(e);
  clients.__michiModelClients ??= new Map();
  const key = JSON.stringify([p?.apiKey ?? null, p?.baseURL ?? null]);
  let client = clients.__michiModelClients.get(key);
  if (!client) {
    client = modelClient({ baseURL: p?.baseURL, apiKey: p?.apiKey });
    // A handful of providers at most; the bound only guards against a settings churn in a long-lived process.
    if (clients.__michiModelClients.size >= 32) {
      for (const c of clients.__michiModelClients.values()) void c.dispatcher.close();
      clients.__michiModelClients.clear();
    }
    clients.__michiModelClients.set(key, client);
  }
  return client;
}

/** The profile of the server behind `model`, and the key its learned adaptations are kept under. */
export function modelProfile(e: Env, model: string): { profile: Profile; serverKey: string | undefined } {
  const p = providerFor(e, model) ?? { name: "default", models: [] };
  return { profile: profileFor(p, model), serverKey: p.baseURL };
}

export type ModelMessage = OpenAI.ChatCompletionMessageParam;
export type ToolCall = { id: string; name: string; arguments: string; extraContent?: unknown };
export type Usage = { promptTokens: number; completionTokens: number };

/** Why a model call ended early. */
export type ModelFault =
  | "model_busy" // 429 after our retries
  | "model_error" // 5xx or another refusal after retries
  | "model_timeout" // the whole call took longer than MICHI_MODEL_TIMEOUT_MS
  | "idle_timeout" // no chunk for MICHI_MODEL_IDLE_TIMEOUT_MS
  | "interrupted" // the connection broke mid-stream, or the stream ended without a finish reason or [DONE]
  | "length" // the provider stopped at the output limit (finish_reason "length")
  | "content_filter" // the provider's filter stopped the answer
  | "disconnected"; // the visitor went away

export type ModelResult = {
  text: string;
  /** Thinking text: never shown or stored, only echoed back within the turn where the provider needs it. */
  reasoning: string;
  toolCalls: ToolCall[];
  /** As reported by the provider; null when the stream ended before the usage chunk. */
  usage: Usage | null;
  /** Something was generated (text, thinking or a call): only then may unreported usage be estimated. */
  generated: boolean;
  fault: ModelFault | null;
  /** Set when the server refused tools and this call answered without them: the server's words. */
  toolsDropped?: string | null;
};

export { type CallOptions, streamCompletion } from "./model-call";
export type { ModelClient } from "./model-http";
