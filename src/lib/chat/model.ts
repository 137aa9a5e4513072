import "server-only";
import type { BotSettings } from "../db/schema";
import { type Env, env } from "../env";
import { processSlot } from "../process-slot";
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
const clientSlot = processSlot<Map<string, ModelClient>>("ModelClients");

/** A client for the provider that serves `model` (the default provider when no named one lists it). */
export function createModelClient(e = env(), model?: string): ModelClient {
  const p = (model ? providerFor(e, model) : null) ?? defaultProvider(e);
  const clients = clientSlot.use(() => new Map());
  const key = JSON.stringify([p?.apiKey ?? null, p?.baseURL ?? null]);
  let client = clients.get(key);
  if (!client) {
    client = modelClient({ baseURL: p?.baseURL, apiKey: p?.apiKey });
    // A handful of providers at most; the bound only guards against a settings churn in a long-lived process.
    if (clients.size >= 32) {
      for (const c of clients.values()) void c.dispatcher.close();
      clients.clear();
    }
    clients.set(key, client);
  }
  return client;
}

/** The profile of the server behind `model`, and the key its learned adaptations are kept under. */
export function modelProfile(e: Env, model: string): { profile: Profile; serverKey: string | undefined } {
  const p = providerFor(e, model) ?? { name: "default", models: [] };
  return { profile: profileFor(p, model), serverKey: p.baseURL };
}

export type { ModelClient } from "./model-http";
