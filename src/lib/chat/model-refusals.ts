import "server-only";
import type { Profile } from "./providers";

// Reading a model server's refusal. Errors are inspected by shape, never by `instanceof`: the SDK's error
// classes may come from another bundle copy (see src/lib/errors.ts brands).

export type HttpFailure = { status: number; text: string; retryAfterMs: number | null };

/** The HTTP side of an SDK error, or null when it is not an HTTP answer (network, abort, bug). */
export function httpFailure(err: unknown): HttpFailure | null {
  if (typeof err !== "object" || err === null) return null;
  const e = err as { status?: unknown; message?: unknown; error?: unknown; headers?: unknown };
  if (typeof e.status !== "number") return null;
  const body = e.error === undefined ? "" : JSON.stringify(e.error);
  const text = `${typeof e.message === "string" ? e.message : ""} ${body}`.slice(0, 2000);
  return { status: e.status, text, retryAfterMs: retryAfter(e.headers) };
}

/**
 * The request never got an answer because the connection failed (by name, not class: see above). Typically a
 * keep-alive socket the server closed while tools ran; worth one more try, like a 5xx.
 */
export function isConnectionFailure(err: unknown): boolean {
  if (typeof err !== "object" || err === null) return false;
  const e = err as { status?: unknown; message?: unknown; constructor?: { name?: string } };
  // The SDK sets no `name`; its message is stable where a bundler may have renamed the class.
  return (
    e.status === undefined &&
    (e.constructor?.name === "APIConnectionError" || e.message === "Connection error.")
  );
}

function header(headers: unknown, name: string): string | null {
  if (!headers || typeof headers !== "object") return null;
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name);
  const v = (headers as Record<string, unknown>)[name];
  return typeof v === "string" ? v : null;
}

/** retry-after-ms (OpenAI, Azure), else retry-after in seconds or as an HTTP date. */
export function retryAfter(headers: unknown, now = Date.now()): number | null {
  const ms = Number(header(headers, "retry-after-ms"));
  if (header(headers, "retry-after-ms") !== null && Number.isFinite(ms) && ms >= 0) return ms;
  const ra = header(headers, "retry-after");
  if (ra === null) return null;
  const secs = Number(ra);
  if (Number.isFinite(secs) && secs >= 0) return secs * 1000;
  const at = Date.parse(ra);
  return Number.isFinite(at) ? Math.max(0, at - now) : null;
}

export type Sent = {
  outputParam: Profile["outputParam"];
  streamOptions: boolean;
  tools: boolean;
  echoedReasoning: boolean;
  /** The messages hold a round's thinking that could be sent back. */
  hasReasoning: boolean;
};

/** The one change that may get a refused request through, or null when the refusal is not about a parameter. */
export type Adaptation =
  | { kind: "outputParam"; to: Profile["outputParam"]; note: string }
  | { kind: "streamOptions"; note: string }
  | { kind: "echoReasoning"; on: boolean; note: string }
  | { kind: "tools"; note: string; reason: string };

const TOOLS_REFUSED =
  /tool choice|tool_choice|enable-auto-tool-choice|tool-call-parser|--jinja|does not support tools|tools? (are|is) not supported|tools param|not support(ed)? (function|tool)/i;

export function adaptationFor(f: HttpFailure, sent: Sent): Adaptation | null {
  // 400/422 name the parameter; llama-server without --jinja answers 500, Ollama 400, vLLM 400.
  if (f.status < 400 || f.status === 401 || f.status === 403 || f.status === 404 || f.status === 429)
    return null;
  const t = f.text;
  if (
    sent.outputParam === "max_tokens" &&
    /max_tokens/.test(t) &&
    (f.status < 500 || /unsupported/i.test(t))
  ) {
    return {
      kind: "outputParam",
      to: "max_completion_tokens",
      note: "sends max_completion_tokens (the server refused max_tokens)",
    };
  }
  if (sent.outputParam === "max_completion_tokens" && /max_completion_tokens/.test(t)) {
    return {
      kind: "outputParam",
      to: "max_tokens",
      note: "sends max_tokens (the server refused max_completion_tokens)",
    };
  }
  if (sent.streamOptions && /stream_options|include_usage/.test(t)) {
    return {
      kind: "streamOptions",
      note: "stops asking for usage in the stream (the server refused stream_options)",
    };
  }
  if (sent.echoedReasoning && /reasoning_content/.test(t)) {
    return {
      kind: "echoReasoning",
      on: false,
      note: "stops sending reasoning_content back (the server refused it)",
    };
  }
  if (!sent.echoedReasoning && sent.hasReasoning && /reasoning_content/.test(t)) {
    // DeepSeek's thinking mode behind an unknown URL: the follow-up needs the round's thinking back.
    return {
      kind: "echoReasoning",
      on: true,
      note: "sends the round's reasoning_content back (the server asked for it)",
    };
  }
  if (sent.tools && TOOLS_REFUSED.test(t)) {
    // Shown to tenant admins on the setup checklist: anything shaped like a key is blanked out first.
    const reason = t
      .replace(/\b(sk|gsk|pk|key|api)[-_][A-Za-z0-9_-]{8,}/gi, "[redacted]")
      .replace(/\s+/g, " ")
      .trim()
      .slice(0, 240);
    return { kind: "tools", note: "answers without tools (the server refused them)", reason };
  }
  return null;
}

/**
 * The SDK keeps only an error body's `error` member; vLLM and Mistral answer `{"object":"error","message":…}`
 * without one, so their refusal would read "400 status code (no body)". This fetch wraps such bodies in
 * `error` so the refusal's words (the parameter it names) survive.
 */
export const keepErrorBodies: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  if (res.ok) return res;
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const headers = new Headers(res.headers);
  headers.delete("content-length");
  headers.delete("content-encoding");
  let body = text;
  if (json && typeof json === "object" && !("error" in json)) {
    const m =
      (json as { message?: unknown; detail?: unknown }).message ?? (json as { detail?: unknown }).detail;
    body = JSON.stringify({
      error: { ...json, message: typeof m === "string" ? m : JSON.stringify(m ?? json) },
    });
  }
  return new Response(body, { status: res.status, statusText: res.statusText, headers });
};
