// Builds one model answer out of streamed chat-completion chunks, whatever OpenAI-compatible dialect sent them.
// Pure: it never touches the network, so every dialect's recorded chunk sequence can be replayed in a unit test.
//
// Servers disagree on how tool-call deltas are keyed: OpenAI numbers them by `index`; Gemini sends no index;
// Ollama 0.20 sends every call at index 0 with distinct ids; LocalAI repeats one call at two indexes with the
// same id. So a call is found by its id first, then by its index, and a new id at a used index is a new call.

import "server-only";

export type AssembledCall = {
  id: string;
  name: string;
  arguments: string;
  /** Provider data that must travel back with the call (Gemini 3's thought_signature). */
  extraContent?: unknown;
};

export type StreamUsage = { promptTokens: number; completionTokens: number };

/** How the server said the answer ended. Anything else it sends counts as a normal stop. */
export type Finish = "stop" | "tool_calls" | "length" | "content_filter";

export type StreamError = { message: string; code?: string | number; status?: number };

export type Assembled = {
  text: string;
  /** Thinking text (reasoning_content / reasoning): never shown, never stored as the answer. */
  reasoning: string;
  toolCalls: AssembledCall[];
  usage: StreamUsage | null;
  finish: Finish | null;
  /** The server sent `data: [DONE]`. */
  sawDone: boolean;
  /** An error object arrived inside the stream. */
  error: StreamError | null;
  /** Some text, thinking or a tool call arrived: the provider generated, so it bills. */
  generated: boolean;
};

type Pending = { id?: string; name: string; arguments: string; extraContent?: unknown };
type Rec = Record<string, unknown>;

const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown) => (typeof v === "string" ? v : undefined);

function isWholeJson(s: string): boolean {
  const t = s.trim();
  if (!t.startsWith("{")) return false;
  try {
    JSON.parse(t);
    return true;
  } catch {
    return false;
  }
}

function readUsage(u: unknown): StreamUsage | null {
  if (!isRec(u)) return null;
  const p = u.prompt_tokens;
  const c = u.completion_tokens;
  if (typeof p !== "number" || typeof c !== "number") return null;
  return { promptTokens: p, completionTokens: c };
}

function readError(e: unknown): StreamError {
  if (isRec(e)) {
    const message = str(e.message) ?? JSON.stringify(e).slice(0, 300);
    const code = typeof e.code === "string" || typeof e.code === "number" ? e.code : undefined;
    const status = typeof e.status === "number" ? e.status : typeof e.code === "number" ? e.code : undefined;
    return { message, code, status };
  }
  return { message: typeof e === "string" ? e.slice(0, 300) : "stream error" };
}

const FINISHES: Record<string, Finish> = {
  stop: "stop",
  tool_calls: "tool_calls",
  function_call: "tool_calls",
  length: "length",
  max_tokens: "length",
  content_filter: "content_filter",
};

export class StreamAssembler {
  private text = "";
  private reasoning = "";
  private calls: Pending[] = [];
  private byId = new Map<string, Pending>();
  private byIndex = new Map<number, Pending>();
  private usage: StreamUsage | null = null;
  private finish: Finish | null = null;
  private sawDone = false;
  private error: StreamError | null = null;
  private generated = false;

  /** One `data:` payload, already JSON-parsed. Returns the visible text it added (for the visitor). */
  push(chunk: unknown): string {
    if (!isRec(chunk)) return "";
    if (chunk.error !== undefined && chunk.error !== null) {
      this.fail(chunk.error);
      return "";
    }
    // Groq reports usage under x_groq on the last chunk; everyone else at the top level.
    const usage = readUsage(chunk.usage) ?? (isRec(chunk.x_groq) ? readUsage(chunk.x_groq.usage) : null);
    if (usage) this.usage = usage;
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    let shown = "";
    for (const choice of choices) {
      if (!isRec(choice)) continue;
      if (typeof choice.index === "number" && choice.index !== 0) continue; // we only ever ask for one
      const delta = isRec(choice.delta) ? choice.delta : isRec(choice.message) ? choice.message : {};
      const content = str(delta.content);
      if (content) {
        this.text += content;
        shown += content;
        this.generated = true;
      }
      const thought = str(delta.reasoning_content) ?? str(delta.reasoning);
      if (thought) {
        this.reasoning += thought;
        this.generated = true;
      }
      if (Array.isArray(delta.tool_calls)) {
        for (const tc of delta.tool_calls) if (isRec(tc)) this.toolDelta(tc);
      }
      const fr = str(choice.finish_reason);
      if (fr) this.finish = FINISHES[fr] ?? "stop";
    }
    return shown;
  }

  /** `data: [DONE]`. */
  done(): void {
    this.sawDone = true;
  }

  /** An error reported outside a data payload (llama.cpp's `error:` line) or inside one. */
  fail(err: unknown): void {
    this.error ??= readError(err);
  }

  private toolDelta(tc: Rec): void {
    const id = str(tc.id) || undefined;
    const index = typeof tc.index === "number" ? tc.index : undefined;
    let call: Pending | undefined = id ? this.byId.get(id) : undefined;
    if (!call && index !== undefined) {
      const atIndex = this.byIndex.get(index);
      // A different id at a used index is another call (Ollama numbers every call 0).
      if (atIndex && !(id && atIndex.id && atIndex.id !== id)) call = atIndex;
    }
    if (!call && index === undefined && !id) {
      // Neither id nor index: a continuation of the call being built, if any.
      call = this.calls.at(-1);
    }
    if (!call) {
      call = { name: "", arguments: "" };
      this.calls.push(call);
    }
    if (index !== undefined) this.byIndex.set(index, call);
    if (id && !call.id) call.id = id;
    if (id) this.byId.set(id, call);

    const fn = isRec(tc.function) ? tc.function : {};
    const name = str(fn.name);
    if (name && name !== call.name) call.name += name;
    const args = fn.arguments;
    if (typeof args === "string" && args) {
      // A whole JSON object sent again for a call that already holds one replaces it rather than doubling it.
      call.arguments = isWholeJson(call.arguments) && isWholeJson(args) ? args : call.arguments + args;
    } else if (isRec(args)) {
      call.arguments = JSON.stringify(args);
    }
    if (tc.extra_content !== undefined) call.extraContent = tc.extra_content;
    this.generated = true;
  }

  result(): Assembled {
    const used = new Set<string>();
    const toolCalls = this.calls
      .filter((c) => c.name)
      .map((c, i) => {
        let id = c.id ?? `call_${i}`;
        while (used.has(id)) id = `${id}_${i}`;
        used.add(id);
        return {
          id,
          name: c.name,
          arguments: c.arguments || "{}",
          ...(c.extraContent !== undefined ? { extraContent: c.extraContent } : {}),
        };
      });
    return {
      text: this.text,
      reasoning: this.reasoning,
      toolCalls,
      usage: this.usage,
      finish: this.finish,
      sawDone: this.sawDone,
      error: this.error,
      generated: this.generated,
    };
  }
}

/** Why an assembled answer must not count as complete, or null when it may. */
export type StreamEnd = "length" | "content_filter" | "stream_error" | "interrupted" | null;

export function streamEnd(a: Assembled): StreamEnd {
  if (a.error) return "stream_error";
  if (a.finish === "length") return "length";
  if (a.finish === "content_filter") return "content_filter";
  // A server that closes without a finish reason and without [DONE] was cut off, whatever it sent before.
  if (!a.finish && !a.sawDone) return "interrupted";
  return null;
}
