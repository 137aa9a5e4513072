import "server-only";
import { createParser } from "eventsource-parser";
import type { ModelAnswer } from "./model-http";
import type { ModelFault, ModelResult } from "./model-types";
import { type StreamAssembler, streamEnd } from "./stream-assembly";

// Reading one model answer: the raw event stream fed to the assembler (stream-assembly.ts), and what came of
// it as a ModelResult. Reading the SSE here (not through an SDK's iterator) is what lets a missing [DONE] and
// llama.cpp's `error:` line be seen at all.

/**
 * Feeds the answer's body to `asm` until it ends; `onRead` runs on every network read (the idle timer).
 * Throws when the connection breaks or is aborted; what arrived until then stays in `asm`.
 */
export async function readAnswer(
  res: ModelAnswer,
  asm: StreamAssembler,
  onDelta: (text: string) => void,
  onRead: () => void,
): Promise<void> {
  if (res.json) {
    // A server that ignores `stream: true` answers with one whole completion; it reads the same way.
    const shown = asm.push(await res.body.json());
    if (shown) onDelta(shown);
    asm.done();
    return;
  }
  const parser = createParser({
    onEvent: (ev) => {
      if (ev.data === "[DONE]") return asm.done();
      let chunk: unknown;
      try {
        chunk = JSON.parse(ev.data);
      } catch {
        return; // a keep-alive or garbage line; the idle timer still watches the stream
      }
      if (ev.event === "error") return asm.fail(chunk);
      const shown = asm.push(chunk);
      if (shown) onDelta(shown);
    },
    // llama-server reports a failure mid-stream as a non-standard `error: {...}` field.
    onError: (e) => {
      if (e.type === "unknown-field" && e.field === "error") {
        let payload: unknown = e.value;
        try {
          payload = JSON.parse(e.value ?? "");
        } catch {
          // kept as text
        }
        asm.fail(payload && typeof payload === "object" && "error" in payload ? payload.error : payload);
      }
    },
  });
  // A character split across two reads stays whole (stream: true).
  const dec = new TextDecoder();
  for await (const part of res.body) {
    onRead();
    parser.feed(dec.decode(part as Uint8Array, { stream: true }));
  }
}

/**
 * What the assembled answer amounts to. `fault` is why the call was cut short, if it was (timeout, the
 * visitor gone); otherwise the way the stream ended decides.
 */
export function resultOf(asm: StreamAssembler, fault: ModelFault | null): ModelResult {
  const a = asm.result();
  const end = streamEnd(a);
  let why: ModelFault | null = fault;
  if (!why && end) {
    why =
      end === "stream_error"
        ? a.error?.status === 429 || /rate|overload|busy/i.test(String(a.error?.code ?? a.error?.message))
          ? "model_busy"
          : "model_error"
        : end;
  }
  return {
    text: a.text,
    reasoning: a.reasoning,
    toolCalls: a.toolCalls,
    usage: a.usage,
    generated: a.generated,
    fault: why,
  };
}
