import "server-only";
import type { Profile } from "./providers";

// Reading a model server's refusal, from its status, body and headers (model-http.ts hands them over), and
// recognising a connection failure by its code, never by `instanceof` (see src/lib/errors.ts brands).

export type HttpFailure = { status: number; text: string; retryAfterMs: number | null };

/**
 * A refusal as the server wrote it: `<status> <message> <error object>`, the words the adaptations below look
 * for. OpenAI-style bodies carry `{"error": {...}}`; vLLM and Mistral answer `{"object":"error","message":…}`
 * and Ollama `{"error":"…"}`, so each is read for its message. The text is what the openai SDK's error
 * message would be plus the error object, so the adaptations read the same words either way.
 */
export function failureFromBody(status: number, text: string, headers: unknown): HttpFailure {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  let error: unknown;
  if (json && typeof json === "object" && !Array.isArray(json)) {
    const j = json as Record<string, unknown>;
    if ("error" in j) error = j.error;
    else {
      const m = j.message ?? j.detail;
      error = { ...j, message: typeof m === "string" ? m : JSON.stringify(m ?? j) };
    }
  }
  const em = error && typeof error === "object" ? (error as { message?: unknown }).message : undefined;
  const msg = em
    ? typeof em === "string"
      ? em
      : JSON.stringify(em)
    : error !== undefined && error !== null
      ? JSON.stringify(error)
      : json === undefined
        ? text.trim()
        : "";
  const message = msg ? `${status} ${msg}` : `${status} status code (no body)`;
  const body = error === undefined ? "" : JSON.stringify(error);
  return { status, text: `${message} ${body}`.slice(0, 2000), retryAfterMs: retryAfter(headers) };
}

/**
 * The request never got an answer because the connection failed: typically a keep-alive socket the server
 * closed while tools ran, or a server restarting; worth one more try, like a 5xx. Recognised by undici's and
 * the OS's error codes (never by class: see src/lib/errors.ts); a bad URL or a bug is not retried.
 */
export function isConnectionFailure(err: unknown): boolean {
  if (typeof err !== "object" || err === null) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code !== "string") return false;
  if (code === "UND_ERR_INVALID_ARG" || code === "UND_ERR_ABORTED" || code === "ABORT_ERR") return false;
  return code.startsWith("UND_ERR_") || /^E[A-Z_]+$/.test(code);
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
