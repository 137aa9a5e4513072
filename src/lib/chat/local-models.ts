import "server-only";
import { request } from "undici";
import type { PresetName } from "../env-providers";

// A newcomer who runs `npm run dev` on a machine with a local model server should reach a first answer
// without editing a file. The three servers people run most listen on well-known addresses and all answer
// the OpenAI-style model list (GET /v1/models → {"data":[{"id":…}]}): Ollama's OpenAI compatibility layer
// (docs/openai.md in ollama/ollama), LM Studio's local server, and llama.cpp's llama-server. Probing happens only
// in development and only while no model is configured; it reads nothing but the model list.

export type LocalCandidate = { preset: PresetName; name: string; origin: string };
export type LocalModelServer = LocalCandidate & { baseURL: string; models: string[] };

export const LOCAL_CANDIDATES: readonly LocalCandidate[] = [
  { preset: "ollama", name: "Ollama", origin: "http://127.0.0.1:11434" },
  { preset: "lmstudio", name: "LM Studio", origin: "http://127.0.0.1:1234" },
  { preset: "llama-server", name: "llama.cpp server", origin: "http://127.0.0.1:8080" },
];

const MAX_MODELS = 20;
const MAX_BODY = 256 * 1024;

async function probe(c: LocalCandidate, timeoutMs: number): Promise<LocalModelServer | null> {
  const baseURL = `${c.origin}/v1`;
  try {
    const res = await request(`${baseURL}/models`, {
      signal: AbortSignal.timeout(timeoutMs),
      headers: { accept: "application/json" },
    });
    if (res.statusCode !== 200) {
      await res.body.dump();
      return null;
    }
    const text = await res.body.text();
    if (text.length > MAX_BODY) return null;
    const data = (JSON.parse(text) as { data?: { id?: unknown }[] }).data;
    if (!Array.isArray(data)) return null;
    const models = data
      .map((m) => m?.id)
      .filter((id): id is string => typeof id === "string" && /^[\w.:/@-]{1,128}$/.test(id))
      // Embedding-only models cannot chat; Ollama and LM Studio list them beside the chat models.
      .filter((id) => !/embed/i.test(id))
      .slice(0, MAX_MODELS);
    return models.length > 0 ? { ...c, baseURL, models } : null;
  } catch {
    return null; // nothing listens there, or it is not a model server
  }
}

/** The local model servers that answer, in the order of the candidates. */
export async function detectLocalModelServers(
  candidates: readonly LocalCandidate[] = LOCAL_CANDIDATES,
  timeoutMs = 500,
): Promise<LocalModelServer[]> {
  const found = await Promise.all(candidates.map((c) => probe(c, timeoutMs)));
  return found.filter((f): f is LocalModelServer => f !== null);
}
