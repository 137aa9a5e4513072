import { afterEach, describe, expect, it, vi } from "vitest";
import { encodeEvent } from "@/lib/chat/events";
import type { ChatEvent } from "@/shared/chat-events";
import { HttpError, postStream, toEvent } from "@/widget/panel/sse";

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(c) {
      for (const ch of chunks) c.enqueue(ch);
      c.close();
    },
  });
}

/** Splits bytes at awkward places: inside field names, inside a multi-byte character, between CR and LF. */
function shred(bytes: Uint8Array, sizes: number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let i = 0;
  let n = 0;
  while (i < bytes.length) {
    const size = sizes[n++ % sizes.length]!;
    out.push(bytes.slice(i, i + size));
    i += size;
  }
  return out;
}

describe("widget SSE client", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("parses start, chip, delta and done events across arbitrary chunk boundaries", async () => {
    const wire =
      ": keep-alive\n\n" +
      'event: start\ndata: {"conversationId":"c-9","visitorMessageId":"m-0"}\n\n' +
      'event: chip\ndata: {"callId":"c1","label":"Checking if we\'re open","state":"start"}\n\n' +
      'event: chip\r\ndata: {"callId":"c1","label":"Checking if we\'re open","state":"done"}\r\n\r\n' +
      'event: delta\ndata: {"text":"営業中です"}\n\n' +
      'event: delta\ndata: {"text":" — open!"}\n\n' +
      'event: done\ndata: {"conversationId":"c-9","messageId":"m-1"}\n\n';
    const bytes = new TextEncoder().encode(wire);
    let seenInit: RequestInit | undefined;
    vi.stubGlobal(
      "fetch",
      vi.fn(async (_url: string, init: RequestInit) => {
        seenInit = init;
        return new Response(streamOf(shred(bytes, [1, 7, 3, 13, 2])), {
          headers: { "content-type": "text/event-stream" },
        });
      }),
    );
    const events: ChatEvent[] = [];
    await postStream("/api/widget/k/chat", "tok", { message: "hi" }, (e) => events.push(e));
    expect(new Headers(seenInit?.headers).get("authorization")).toBe("Bearer tok");
    expect(events).toEqual([
      { type: "start", data: { conversationId: "c-9", visitorMessageId: "m-0" } },
      { type: "chip", data: { callId: "c1", label: "Checking if we're open", state: "start" } },
      { type: "chip", data: { callId: "c1", label: "Checking if we're open", state: "done" } },
      { type: "delta", data: { text: "営業中です" } },
      { type: "delta", data: { text: " — open!" } },
      { type: "done", data: { conversationId: "c-9", messageId: "m-1" } },
    ]);
  });

  it("turns a refusal before the stream into an HttpError with the server's visitor message", async () => {
    vi.stubGlobal(
      "fetch",
      vi.fn(
        async () =>
          new Response(
            JSON.stringify({ error: { code: "rate_limited", message: "Please wait a moment." } }),
            {
              status: 429,
            },
          ),
      ),
    );
    const err = await postStream("/x", "t", {}, () => {}).catch((e) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect(err).toMatchObject({ status: 429, code: "rate_limited", message: "Please wait a moment." });
  });

  it("drops events of unknown type or wrong shape instead of trusting them", () => {
    expect(toEvent("delta", '{"text":1}')).toBeNull();
    expect(toEvent("chip", '{"callId":"a","label":"x","state":"exploded"}')).toBeNull();
    expect(toEvent("html", '{"text":"<b>"}')).toBeNull();
    expect(toEvent("delta", "not json")).toBeNull();
    expect(toEvent("start", '{"conversationId":"c-9"}')).toBeNull();
    expect(toEvent(undefined, '{"text":"x"}')).toBeNull();
    expect(toEvent("error", '{"code":"model_unavailable","message":"Try again"}')).toEqual({
      type: "error",
      data: { code: "model_unavailable", message: "Try again" },
    });
  });

  it("reads back every event the server writes, field for field", async () => {
    // One of each, with every optional field set: a field the panel drops is a field the two sides disagree on.
    const sent: ChatEvent[] = [
      { type: "start", data: { conversationId: "c-1", visitorMessageId: "m-1" } },
      { type: "chip", data: { callId: "k", label: "Checking stock", state: "error" } },
      { type: "delta", data: { text: "Half an ans" } },
      { type: "handoff", data: {} },
      { type: "done", data: { conversationId: "c-1", messageId: "m-2" } },
      {
        type: "error",
        data: { code: "interrupted", message: "Cut off", conversationId: "c-1", messageId: "m-3" },
      },
    ];
    const wire = new TextEncoder().encode(sent.map(encodeEvent).join(""));
    vi.stubGlobal(
      "fetch",
      vi.fn(async () => new Response(streamOf([wire]))),
    );
    const read: ChatEvent[] = [];
    await postStream("/x", "t", {}, (e) => read.push(e));
    expect(read).toStrictEqual(sent);
  });
});
