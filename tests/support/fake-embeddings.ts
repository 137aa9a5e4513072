import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

// A fake embeddings server on a loopback port of its own (port 0), speaking one of two real dialects:
//
// - "openai": POST /v1/embeddings with { model, input: string | string[], dimensions? },
//   answering { object: "list", data: [{ object: "embedding", embedding, index }], model,
//   usage: { prompt_tokens, total_tokens } } (floats: the client never asks for encoding_format "base64").
//   Errors are { error: { message, type, param, code } } (401 invalid_api_key,
//   429 rate limits with Retry-After, 400 invalid_request_error).
//   Source: developers.openai.com/api/reference/resources/embeddings (Create embeddings, the embedding object)
//   and developers.openai.com/docs/guides/error-codes.
// - "ollama": POST /api/embed with { model, input: string | string[], truncate?, dimensions?, keep_alive? },
//   answering { model, embeddings: number[][], total_duration, load_duration, prompt_eval_count }; errors
//   are { error: "<text>" }: 404 `model "<name>" not found, try pulling it first` for a model not pulled,
//   400 "the input length exceeds the context length" when truncate is false and an input is too long.
//   Source: ollama/ollama docs/api.md "Generate Embeddings" and server/routes.go (the 404 text).
//
// Vectors are deterministic: each word of the text adds ±1 to a dimension picked by its hash, so texts that
// share words point the same way and a test can tell a right neighbour from a wrong one.

export type FakeEmbeddingsDialect = "openai" | "ollama";

export type FakeEmbeddingsFault =
  | { kind: "status"; status: number; retryAfter?: number }
  | { kind: "stall" }
  | { kind: "wrong-count" }
  | { kind: "shuffle" }
  | { kind: "hangup" };

export type FakeEmbeddingsRequest = {
  path: string;
  headers: IncomingMessage["headers"];
  body: Record<string, unknown>;
};

export type FakeEmbeddings = {
  url: string;
  requests: FakeEmbeddingsRequest[];
  /** Faults for the next requests, one each, in order. */
  faults: FakeEmbeddingsFault[];
  close(): Promise<void>;
};

/** The fake's vector for a text: words hashed into `dims` signed buckets (not normalised). */
export function fakeVector(text: string, dims: number): number[] {
  const v: number[] = Array.from({ length: dims }, () => 0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const h = createHash("sha256").update(word).digest();
    const at = h.readUInt32LE(0) % dims;
    v[at] = (v[at] ?? 0) + ((h[4] ?? 0) & 1 ? 1 : -1);
  }
  if (!v.some((x) => x !== 0)) v[0] = 1;
  return v;
}

function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on("data", (p: Buffer) => parts.push(p));
    req.on("end", () => {
      try {
        resolve(JSON.parse(Buffer.concat(parts).toString("utf8") || "{}"));
      } catch (e) {
        reject(e);
      }
    });
    req.on("error", reject);
  });
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function openaiError(status: number): { message: string; type: string; param: null; code: string | null } {
  if (status === 401)
    return {
      message: "Incorrect API key provided: sk-wrong.",
      type: "invalid_request_error",
      param: null,
      code: "invalid_api_key",
    };
  if (status === 429)
    return {
      message: "Rate limit reached for requests",
      type: "requests",
      param: null,
      code: "rate_limit_exceeded",
    };
  if (status >= 500)
    return {
      message: "The server had an error while processing your request.",
      type: "server_error",
      param: null,
      code: null,
    };
  return { message: "Invalid request.", type: "invalid_request_error", param: null, code: null };
}

function ollamaError(status: number, model: string): string {
  if (status === 404) return `model "${model}" not found, try pulling it first`;
  if (status === 400) return "the input length exceeds the context length";
  return "llama runner process has terminated";
}

export type FakeEmbeddingsOptions = {
  dialect: FakeEmbeddingsDialect;
  dims?: number;
  /** When set, requests without `Authorization: Bearer <apiKey>` get the dialect's 401. */
  apiKey?: string;
  /** Models the server has; others get the dialect's "model not found". */
  models?: string[];
};

export async function startFakeEmbeddings(opts: FakeEmbeddingsOptions): Promise<FakeEmbeddings> {
  const dims = opts.dims ?? 64;
  const requests: FakeEmbeddingsRequest[] = [];
  const faults: FakeEmbeddingsFault[] = [];
  const path = opts.dialect === "openai" ? "/v1/embeddings" : "/api/embed";
  const server: Server = createServer(async (req, res) => {
    const body = await readJson(req).catch(() => ({}) as Record<string, unknown>);
    requests.push({ path: req.url ?? "", headers: req.headers, body });
    const model = String(body.model ?? "");
    const fault = faults.shift();
    const fail = (status: number, headers: Record<string, string> = {}) =>
      opts.dialect === "openai"
        ? send(res, status, { error: openaiError(status) }, headers)
        : send(res, status, { error: ollamaError(status, model) }, headers);
    if (req.method !== "POST" || req.url !== path) return send(res, 404, { error: "not found" });
    if (fault?.kind === "stall") return; // never answers; the client's timeout must end it
    if (fault?.kind === "hangup") return req.socket.destroy();
    if (fault?.kind === "status")
      return fail(fault.status, fault.retryAfter ? { "retry-after": String(fault.retryAfter) } : {});
    if (opts.apiKey && req.headers.authorization !== `Bearer ${opts.apiKey}`) return fail(401);
    if (opts.models && !opts.models.includes(model)) return fail(404);
    const input = Array.isArray(body.input) ? body.input.map(String) : [String(body.input ?? "")];
    if (opts.dialect === "openai" && input.some((t) => t === "")) return fail(400);
    const size = typeof body.dimensions === "number" ? body.dimensions : dims;
    let vectors = input.map((t) => fakeVector(t, size));
    if (fault?.kind === "wrong-count") vectors = vectors.slice(1);
    const tokens = input.reduce((n, t) => n + t.split(/\s+/).length, 0);
    if (opts.dialect === "ollama") {
      return send(res, 200, {
        model,
        embeddings: vectors,
        total_duration: 14_000_000,
        load_duration: 1_000_000,
        prompt_eval_count: tokens,
      });
    }
    let data = vectors.map((embedding, index) => ({ object: "embedding", index, embedding }));
    if (fault?.kind === "shuffle") data = [...data].reverse();
    send(res, 200, { object: "list", data, model, usage: { prompt_tokens: tokens, total_tokens: tokens } });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    faults,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
