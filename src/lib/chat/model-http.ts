import "server-only";
import { Agent, type Dispatcher, request } from "undici";
import { failureFromBody, type HttpFailure } from "./model-refusals";

// The HTTP side of a model call: one POST to `<baseURL>/chat/completions` with undici's request API on a
// keep-alive pool per server. Not the openai SDK's client and the global fetch, which Next patches for its
// data cache: per call they add the SDK's request building, an AbortController, WHATWG
// Request/Response/ReadableStream objects and Next's fetch tracing, about 15% of a turn's CPU (bench/README.md).
// The SDK would do nothing more than send this one request: the stream is read and assembled here
// (model-stream.ts), and the SDK's types describe the messages.

/** Where a model server is and how to reach it. Plain data, so tests point one at their scripted servers. */
export type ModelClient = {
  /** Ends in /v1 (or the server's equivalent); `/chat/completions` is appended. */
  baseURL: string;
  /** Sent as a bearer token; self-hosted servers often need none. */
  apiKey: string | null;
  /** The connection pool; tests may pass their own dispatcher. */
  dispatcher: Dispatcher;
};

export const OPENAI_BASE_URL = "https://api.openai.com/v1";

/** The pool for a model server: connections stay open between rounds and turns. */
export function modelClient(opts: { baseURL?: string | null; apiKey?: string | null }): ModelClient {
  return {
    baseURL: (opts.baseURL || OPENAI_BASE_URL).replace(/\/+$/, ""),
    apiKey: opts.apiKey ?? null,
    // Our own timers (model-call.ts) end a call; undici's would only cut a slow but healthy stream.
    dispatcher: new Agent({ headersTimeout: 0, bodyTimeout: 0 }),
  };
}

/** A streamed (or, from a server that ignores `stream`, whole) answer with status 2xx. */
export type ModelAnswer = { kind: "answer"; json: boolean; body: Dispatcher.ResponseData["body"] };
export type ModelRefusal = { kind: "refusal"; failure: HttpFailure };

// An error body is read up to this size: refusals are a few hundred bytes, anything longer is not read.
const MAX_ERROR_BODY = 64 * 1024;

async function readCapped(body: Dispatcher.ResponseData["body"]): Promise<string> {
  let text = "";
  const dec = new TextDecoder();
  for await (const part of body) {
    text += dec.decode(part as Uint8Array, { stream: true });
    if (text.length >= MAX_ERROR_BODY) {
      body.destroy();
      break;
    }
  }
  return text;
}

/**
 * Sends one chat-completions request. Resolves with the answer's body to read, or with the server's refusal
 * (status ≥ 300, body read); rejects when no answer came at all (connection failure, abort).
 */
export async function postCompletion(
  client: ModelClient,
  body: unknown,
  signal: AbortSignal,
): Promise<ModelAnswer | ModelRefusal> {
  const res = await request(`${client.baseURL}/chat/completions`, {
    method: "POST",
    dispatcher: client.dispatcher,
    signal,
    headers: {
      "content-type": "application/json",
      accept: "text/event-stream, application/json",
      "user-agent": "michi-chat",
      ...(client.apiKey ? { authorization: `Bearer ${client.apiKey}` } : {}),
    },
    body: JSON.stringify(body),
  });
  if (res.statusCode >= 200 && res.statusCode < 300) {
    const type = res.headers["content-type"];
    return { kind: "answer", json: /application\/json/i.test(String(type ?? "")), body: res.body };
  }
  const text = await readCapped(res.body);
  return { kind: "refusal", failure: failureFromBody(res.statusCode, text, res.headers) };
}
