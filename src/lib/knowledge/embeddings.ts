import "server-only";
import { Agent, type Dispatcher, request } from "undici";
import { presetFor } from "../chat/providers";
import type { Env } from "../env";
import type { PresetName } from "../env-providers";
import { AppError, isAppError } from "../errors";
import { normalize, type Vector } from "./vectors";

// The embeddings model of knowledge search, configured by the operator (MICHI_EMBEDDINGS*, .env.example),
// served by one of the chat providers. Two dialects: OpenAI's POST <base>/embeddings, which OpenAI, Mistral,
// Gemini's OpenAI-compatible endpoint, vLLM, llama.cpp, LM Studio and Ollama's /v1 all speak, and Ollama's own
// POST /api/embed. Requests go through undici's request API on a keep-alive pool, like the chat client
// (src/lib/chat/model-http.ts). Every failure is an AppError whose details say whether a retry can help.

export type EmbeddingsDialect = "openai" | "ollama";

export type EmbeddingsConfig = {
  /** The model as its server names it. */
  model: string;
  dialect: EmbeddingsDialect;
  /** openai: the base URL `/embeddings` is appended to; ollama: the server root `/api/embed` is appended to. */
  baseURL: string;
  apiKey: string | null;
  preset: PresetName;
  /** Requested vector size, or null for the model's own. */
  dimensions: number | null;
  batchSize: number;
  timeoutMs: number;
  queryPrefix: string;
  documentPrefix: string;
};

export type EmbeddingsClient = { config: EmbeddingsConfig; dispatcher: Dispatcher };

export type EmbedResult = {
  /** One unit-length vector per input text, in input order. */
  vectors: Vector[];
  dimensions: number;
  /** Input tokens the server reports, when it reports them. */
  tokens: number | null;
};

/** The operator's embeddings model, or null when none is configured (search is then full text only). */
export function embeddingsConfig(e: Env): EmbeddingsConfig | null {
  if (!e.MICHI_EMBEDDINGS) return null;
  const named = (e.providers ?? []).find((p) => p.name === e.MICHI_EMBEDDINGS_PROVIDER);
  const provider = named ?? { baseURL: e.OPENAI_BASE_URL, apiKey: e.OPENAI_API_KEY, preset: e.OPENAI_PRESET };
  const dialect = e.MICHI_EMBEDDINGS_DIALECT;
  let baseURL = (provider.baseURL || "https://api.openai.com/v1").replace(/\/+$/, "");
  // Ollama's own API sits at the server root; its OpenAI-compatible one, which chat uses, under /v1.
  if (dialect === "ollama") baseURL = baseURL.replace(/\/(v1|api)$/, "");
  return {
    model: e.MICHI_EMBEDDINGS,
    dialect,
    baseURL,
    apiKey: provider.apiKey ?? null,
    preset: presetFor({ preset: provider.preset, baseURL: provider.baseURL }),
    dimensions: e.MICHI_EMBEDDINGS_DIMENSIONS || null,
    batchSize: e.MICHI_EMBEDDINGS_BATCH,
    timeoutMs: e.MICHI_EMBEDDINGS_TIMEOUT_MS,
    queryPrefix: e.MICHI_EMBEDDINGS_QUERY_PREFIX ?? "",
    documentPrefix: e.MICHI_EMBEDDINGS_DOCUMENT_PREFIX ?? "",
  };
}

/**
 * What a stored vector records as the model that made it: vectors with different ids are never compared,
 * so changing the model or the requested size re-embeds instead of mixing two vector spaces.
 */
export function embeddingModelId(config: EmbeddingsConfig): string {
  return `${config.model}${config.dimensions ? `@${config.dimensions}` : ""}`;
}

export function embeddingsClient(config: EmbeddingsConfig, dispatcher?: Dispatcher): EmbeddingsClient {
  // Our own timer (timeoutMs) ends a request; undici's would only add a second, different limit.
  return { config, dispatcher: dispatcher ?? new Agent({ headersTimeout: 0, bodyTimeout: 0 }) };
}

// An answer is at most batch × dimensions numbers; 64 MB holds 2048 × 3072 floats written out in JSON.
const MAX_BODY = 64 * 1024 * 1024;
const MAX_BATCH_CHARS = 200_000;

function retryable(message: string, status?: number, retryAfterSec?: number): AppError {
  return new AppError(status === 429 ? "rate_limited" : "model_unavailable", message, {
    retryable: true,
    ...(status ? { status } : {}),
    ...(retryAfterSec ? { retryAfterSec } : {}),
  });
}

function permanent(message: string, status?: number): AppError {
  return new AppError("model_unavailable", message, { retryable: false, ...(status ? { status } : {}) });
}

/** The server's own words from an error body in either dialect (OpenAI, vLLM/Mistral, Ollama). */
function serverMessage(text: string): string {
  try {
    const j = JSON.parse(text) as Record<string, unknown>;
    const err = j.error;
    if (typeof err === "string") return err;
    if (err && typeof err === "object" && typeof (err as { message?: unknown }).message === "string")
      return (err as { message: string }).message;
    if (typeof j.message === "string") return j.message;
    if (j.detail !== undefined) return JSON.stringify(j.detail).slice(0, 300);
  } catch {
    // not JSON: the text itself
  }
  return text.trim().slice(0, 300);
}

function refusalError(config: EmbeddingsConfig, status: number, text: string, retryAfter: unknown): AppError {
  const said = serverMessage(text) || `status ${status}`;
  const what = `The embeddings server refused ${config.model} (${status}): ${said}`;
  if (status === 429) {
    const sec = Number(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter);
    return retryable(what, status, Number.isFinite(sec) && sec > 0 ? Math.ceil(sec) : undefined);
  }
  if (status >= 500 || status === 408) return retryable(what, status);
  return permanent(what, status);
}

async function readBody(body: Dispatcher.ResponseData["body"]): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of body) {
    size += (part as Buffer).length;
    if (size > MAX_BODY) {
      body.destroy();
      throw permanent(`The embeddings server's answer is larger than ${MAX_BODY / 1024 / 1024} MB.`);
    }
    parts.push(part as Buffer);
  }
  return Buffer.concat(parts).toString("utf8");
}

function requestFor(
  config: EmbeddingsConfig,
  input: string[],
): { url: string; body: Record<string, unknown> } {
  if (config.dialect === "ollama") {
    const body: Record<string, unknown> = { model: config.model, input };
    if (config.dimensions) body.dimensions = config.dimensions;
    return { url: `${config.baseURL}/api/embed`, body };
  }
  const body: Record<string, unknown> = { model: config.model, input };
  // Mistral's schema forbids unknown fields and names the size output_dimension.
  if (config.dimensions)
    body[config.preset === "mistral" ? "output_dimension" : "dimensions"] = config.dimensions;
  return { url: `${config.baseURL}/embeddings`, body };
}

/** The vectors of an answer, in input order, or a permanent error naming what is wrong with it. */
function vectorsOf(
  config: EmbeddingsConfig,
  json: unknown,
  count: number,
): { raw: number[][]; tokens: number | null } {
  const j = (json ?? {}) as Record<string, unknown>;
  let raw: unknown[];
  let tokens: number | null = null;
  if (config.dialect === "ollama") {
    raw = Array.isArray(j.embeddings) ? j.embeddings : [];
    if (typeof j.prompt_eval_count === "number") tokens = j.prompt_eval_count;
  } else {
    const data = Array.isArray(j.data) ? (j.data as { index?: unknown; embedding?: unknown }[]) : [];
    // Each item names its input by index; servers need not answer in order.
    raw = new Array(data.length);
    data.forEach((d, pos) => {
      const at = typeof d?.index === "number" ? d.index : pos;
      raw[at] = d?.embedding;
    });
    const usage = j.usage as { prompt_tokens?: unknown } | undefined;
    if (typeof usage?.prompt_tokens === "number") tokens = usage.prompt_tokens;
  }
  if (raw.length !== count) {
    throw permanent(`The embeddings server answered ${raw.length} vectors for ${count} texts.`);
  }
  const vectors = raw.map((v) => {
    if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === "number" && Number.isFinite(x))) {
      throw permanent("The embeddings server answered something that is not a list of numbers.");
    }
    return v as number[];
  });
  return { raw: vectors, tokens };
}

async function embedBatch(
  client: EmbeddingsClient,
  input: string[],
  signal?: AbortSignal,
): Promise<EmbedResult> {
  const { config } = client;
  const { url, body } = requestFor(config, input);
  const timeout = AbortSignal.timeout(config.timeoutMs);
  const both = signal ? AbortSignal.any([signal, timeout]) : timeout;
  let text: string;
  try {
    const res = await request(url, {
      method: "POST",
      dispatcher: client.dispatcher,
      signal: both,
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        "user-agent": "michi-chat",
        ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}),
      },
      body: JSON.stringify(body),
    });
    text = await readBody(res.body);
    if (res.statusCode < 200 || res.statusCode >= 300) {
      throw refusalError(config, res.statusCode, text, res.headers["retry-after"]);
    }
  } catch (e) {
    if (isAppError(e)) throw e;
    if (signal?.aborted) throw retryable("The embeddings request was cancelled.");
    if (timeout.aborted)
      throw retryable(`The embeddings server did not answer within ${config.timeoutMs} ms.`);
    const code = (e as { code?: string }).code;
    throw retryable(
      `The embeddings server at ${new URL(url).host} could not be reached${code ? ` (${code})` : ""}.`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw permanent("The embeddings server answered something that is not JSON.");
  }
  const { raw, tokens } = vectorsOf(config, json, input.length);
  const dimensions = raw[0]?.length ?? 0;
  if (raw.some((v) => v.length !== dimensions))
    throw permanent("The embeddings server answered vectors of different sizes.");
  if (config.dimensions && dimensions !== config.dimensions) {
    throw permanent(
      `The embeddings model answered ${dimensions} dimensions; ${config.dimensions} were asked for.`,
    );
  }
  return { vectors: raw.map(normalize), dimensions, tokens };
}

/** Batches within the configured size and a character budget, so no request grows without bound. */
function batches(texts: string[], size: number): string[][] {
  const out: string[][] = [];
  let current: string[] = [];
  let chars = 0;
  for (const t of texts) {
    if (current.length >= size || (current.length > 0 && chars + t.length > MAX_BATCH_CHARS)) {
      out.push(current);
      current = [];
      chars = 0;
    }
    current.push(t);
    chars += t.length;
  }
  if (current.length) out.push(current);
  return out;
}

/**
 * Embeds texts (chunks with `kind: "document"`, a visitor's search with `kind: "query"`), batch after batch.
 * Every vector has the same dimensions; a server that changes them mid-way is refused.
 */
export async function embedTexts(
  client: EmbeddingsClient,
  texts: string[],
  opts: { kind: "document" | "query"; signal?: AbortSignal },
): Promise<EmbedResult> {
  if (texts.some((t) => t.trim() === ""))
    throw new AppError("invalid_input", "An empty text cannot be embedded.");
  const prefix = opts.kind === "query" ? client.config.queryPrefix : client.config.documentPrefix;
  const vectors: Vector[] = [];
  let dimensions = 0;
  let tokens: number | null = null;
  for (const batch of batches(
    texts.map((t) => prefix + t),
    client.config.batchSize,
  )) {
    const r = await embedBatch(client, batch, opts.signal);
    if (dimensions && r.dimensions !== dimensions)
      throw permanent("The embeddings model changed its vector size.");
    dimensions = r.dimensions;
    vectors.push(...r.vectors);
    if (r.tokens !== null) tokens = (tokens ?? 0) + r.tokens;
  }
  return { vectors, dimensions, tokens };
}
