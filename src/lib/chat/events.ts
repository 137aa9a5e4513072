// The events the widget receives, and their Server-Sent Events encoding. Nothing here ever carries tool
// arguments or results: a chip shows only the pack's label, and `done` only the title and address of each
// indexed page the answer cites (src/shared/citations.ts).

import "server-only";
import type { Citation } from "@/shared/citations";

export type ChipState = "start" | "done" | "error";

export type ChatEvent =
  /**
   * Always the first event, sent once the visitor's message is stored: the widget keeps the conversation at
   * once (a reload mid-answer finds it again) and can retry this very message instead of storing it twice.
   */
  | { type: "start"; data: { conversationId: string; visitorMessageId: string } }
  | { type: "chip"; data: { callId: string; label: string; state: ChipState } }
  | { type: "delta"; data: { text: string } }
  | { type: "done"; data: { conversationId: string; messageId: string; citations?: Citation[] } }
  /** A pack with `ui: "contact_form"` (request_human) ran: the panel shows its contact form under the answer. */
  | { type: "handoff"; data: Record<string, never> }
  | { type: "error"; data: { code: string; message: string; conversationId?: string; messageId?: string } };

export type Emit = (event: ChatEvent) => void;

export function encodeEvent(event: ChatEvent): string {
  // JSON never contains a raw newline, so one data line per event is enough.
  return `event: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

/** An SSE comment: ignored by clients, keeps proxies from closing a quiet connection while packs run. */
export const HEARTBEAT = ": keep-alive\n\n";

export const SSE_HEADERS: Record<string, string> = {
  "Content-Type": "text/event-stream; charset=utf-8",
  "Cache-Control": "no-cache, no-transform",
  "X-Accel-Buffering": "no",
};

/**
 * A byte stream fed by `run(emit, signal)`. The signal aborts when the reader goes away (the visitor closed the
 * widget or lost the connection), so the turn can stop the model and the packs.
 */
export function eventStream(
  run: (emit: Emit, signal: AbortSignal) => Promise<void>,
  opts: { signal?: AbortSignal; heartbeatMs?: number } = {},
): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  const gone = new AbortController();
  const onOuterAbort = () => gone.abort(opts.signal?.reason);
  let closed = false;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (opts.signal?.aborted) gone.abort(opts.signal.reason);
      opts.signal?.addEventListener("abort", onOuterAbort, { once: true });
      // Events written in the same tick (the deltas of one network read of the model's stream, a chip and
      // the text after it) leave as one chunk: one pass through the response pipe and one socket write
      // instead of one per event (npm run bench).
      let pending = "";
      let queued = false;
      const flush = () => {
        queued = false;
        if (closed || !pending) return;
        const chunk = pending;
        pending = "";
        try {
          controller.enqueue(enc.encode(chunk));
        } catch {
          closed = true;
        }
      };
      const write = (chunk: string) => {
        if (closed) return;
        pending += chunk;
        if (!queued) {
          queued = true;
          queueMicrotask(flush);
        }
      };
      heartbeat = setInterval(() => write(HEARTBEAT), opts.heartbeatMs ?? 15_000);
      const finish = () => {
        clearInterval(heartbeat);
        opts.signal?.removeEventListener("abort", onOuterAbort);
        flush();
        if (closed) return;
        closed = true;
        try {
          controller.close();
        } catch {
          // already cancelled by the reader
        }
      };
      run((e) => write(encodeEvent(e)), gone.signal).then(finish, finish);
    },
    cancel(reason) {
      closed = true;
      clearInterval(heartbeat);
      gone.abort(reason ?? new Error("client went away"));
    },
  });
}
