import type { FakeChatBody } from "../fake-model-script";

// The shape every dialect fixture shares: how one OpenAI-compatible server streams a text answer and tool
// calls, how it ends, how it reports usage, and how it refuses. Each provider file configures this with what
// its real server does and cites where that was read. Frames are raw SSE blocks, exactly as sent on the wire.

export type Call = { id: string; name: string; arguments: string };
export type Refusal = { status: number; body: unknown; headers?: Record<string, string> };
export type Usage = { prompt: number; completion: number };

export type DialectOptions = {
  /** How tool-call deltas are keyed: by position (OpenAI), all at 0 (Ollama 0.20), none (Gemini). */
  index: "position" | "zero" | "none";
  /** Arguments streamed in pieces after a name-only delta, or the whole call in one delta. */
  args: "pieces" | "whole";
  /** LocalAI: each call also repeated at a second index with the same id. */
  repeatAtNextIndex?: boolean;
  /** Usage: a separate chunk when stream_options asks (OpenAI), always on the finish chunk, under x_groq. */
  usage: "when-asked" | "always-final" | "x_groq";
  /** Thinking deltas before the answer, under this field. */
  reasoningField?: "reasoning_content" | "reasoning";
  /** Gemini 3: the first call of a round carries extra_content.google.thought_signature. */
  thoughtSignature?: boolean;
  /** Azure: a first chunk with empty choices and prompt_filter_results. */
  promptFilterChunk?: boolean;
  /** finish_reason sent for tool calls (Gemini sends "stop"). */
  toolFinish?: string;
  /** How the server reports an error after the stream started. */
  streamError: "data-error" | "error-field" | "openrouter";
  /** Extra lines some servers interleave (OpenRouter's ": OPENROUTER PROCESSING" comments). */
  comment?: string;
  idPrefix: string;
};

export type Dialect = {
  name: string;
  /** The preset michi-chat should use for it (OPENAI_PRESET). */
  preset: string;
  /** A model name as this provider spells them. */
  model: string;
  sources: string[];
  opts: DialectOptions;
  /** A refusal of this request, as the real server would answer it, or null to go on. */
  refuse(body: FakeChatBody, flags: DialectFlags): Refusal | null;
};

/** Switches for how the fake server was "started" (vLLM flags, llama-server --jinja, a model without tools). */
export type DialectFlags = { toolsOff?: boolean; refuseMaxTokens?: boolean };

type Meta = { id: string; created: number; model: string };

const data = (obj: unknown) => `data: ${JSON.stringify(obj)}`;

function chunk(m: Meta, delta: Record<string, unknown>, finish: string | null = null, extra = {}) {
  return data({
    id: m.id,
    object: "chat.completion.chunk",
    created: m.created,
    model: m.model,
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra,
  });
}

const pieces = (s: string, n: number) => {
  const out: string[] = [];
  for (let i = 0; i < s.length; i += n) out.push(s.slice(i, i + n));
  return out.length ? out : [""];
};

function usageExtra(o: DialectOptions, u: Usage) {
  const usage = {
    prompt_tokens: u.prompt,
    completion_tokens: u.completion,
    total_tokens: u.prompt + u.completion,
  };
  return o.usage === "x_groq" ? { x_groq: { id: "req_01fake", usage } } : { usage };
}

export type Body = { answer?: string; reasoning?: string; calls?: Call[] };
export type Ending = "stop" | "length" | "content_filter" | "cut" | "stream_error";

/** The frames of one answer in this dialect. `wantUsage` is whether the request asked for usage. */
export function frames(d: Dialect, m: Meta, b: Body, end: Ending, u: Usage, wantUsage: boolean): string[] {
  const o = d.opts;
  const out: string[] = [];
  if (o.promptFilterChunk) {
    out.push(
      data({
        id: "",
        object: "",
        created: 0,
        model: "",
        choices: [],
        prompt_filter_results: [
          { prompt_index: 0, content_filter_results: { hate: { filtered: false, severity: "safe" } } },
        ],
      }),
    );
  }
  out.push(chunk(m, { role: "assistant", content: "" }));
  if (o.comment) out.push(o.comment);
  if (b.reasoning && o.reasoningField) {
    for (const p of pieces(b.reasoning, 10)) out.push(chunk(m, { content: null, [o.reasoningField]: p }));
  }
  const text = b.answer ?? "";
  const textPieces = text ? pieces(text, 7) : [];
  const cutAt =
    end === "cut" || end === "stream_error" ? Math.ceil(textPieces.length / 2) : textPieces.length;
  for (const p of textPieces.slice(0, cutAt)) out.push(chunk(m, { content: p }));
  if (end === "cut") return out;
  if (end === "stream_error") {
    const err = { message: "the model server ran out of memory", type: "server_error", code: 500 };
    if (o.streamError === "error-field") out.push(`error: ${JSON.stringify({ error: err })}`);
    else if (o.streamError === "openrouter")
      out.push(
        data({
          id: m.id,
          object: "chat.completion.chunk",
          error: { code: 502, message: err.message },
          choices: [{ index: 0, delta: { content: "" }, finish_reason: "error" }],
        }),
      );
    else out.push(data({ error: err }));
    return out;
  }
  (b.calls ?? []).forEach((c, i) => {
    const index = o.index === "position" ? i : o.index === "zero" ? 0 : undefined;
    // Gemini signs only the first call of a round (parallel calls share that signature).
    const extra =
      o.thoughtSignature && i === 0
        ? { extra_content: { google: { thought_signature: `sig-${c.id}` } } }
        : {};
    const head = { ...(index === undefined ? {} : { index }), id: c.id, type: "function", ...extra };
    if (o.args === "whole") {
      out.push(chunk(m, { tool_calls: [{ ...head, function: { name: c.name, arguments: c.arguments } }] }));
      if (o.repeatAtNextIndex) {
        out.push(
          chunk(m, {
            tool_calls: [
              { ...head, index: (index ?? i) + 1, function: { name: c.name, arguments: c.arguments } },
            ],
          }),
        );
      }
    } else {
      out.push(chunk(m, { tool_calls: [{ ...head, function: { name: c.name, arguments: "" } }] }));
      for (const p of pieces(c.arguments, 6)) {
        out.push(
          chunk(m, {
            tool_calls: [{ ...(index === undefined ? {} : { index }), function: { arguments: p } }],
          }),
        );
      }
    }
  });
  const finish =
    end === "length"
      ? "length"
      : end === "content_filter"
        ? "content_filter"
        : b.calls?.length
          ? (o.toolFinish ?? "tool_calls")
          : "stop";
  const finalExtra = o.usage === "when-asked" ? {} : usageExtra(o, u);
  const filterExtra =
    end === "content_filter"
      ? { content_filter_results: { violence: { filtered: true, severity: "medium" } } }
      : {};
  out.push(
    data({
      id: m.id,
      object: "chat.completion.chunk",
      created: m.created,
      model: m.model,
      choices: [{ index: 0, delta: {}, finish_reason: finish, ...filterExtra }],
      ...finalExtra,
    }),
  );
  if (o.usage === "when-asked" && wantUsage) {
    out.push(
      data({
        id: m.id,
        object: "chat.completion.chunk",
        created: m.created,
        model: m.model,
        choices: [],
        ...usageExtra(o, u),
      }),
    );
  }
  out.push("data: [DONE]");
  return out;
}

export const sentTools = (b: FakeChatBody) => Array.isArray(b.tools) && b.tools.length > 0;
export const openaiError = (
  status: number,
  message: string,
  extra: Record<string, unknown> = {},
): Refusal => ({
  status,
  body: { error: { message, type: "invalid_request_error", param: null, code: null, ...extra } },
});
