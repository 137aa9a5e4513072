import { createParser, type EventSourceMessage } from "eventsource-parser";
import { describe, expect, it } from "vitest";
import { encodeEvent, eventStream } from "@/lib/chat/events";
import { acquireStreamSlot, limitSettings, openStreams } from "@/lib/chat/limits";
import { deferred } from "../support/deferred";

async function readAll(stream: ReadableStream<Uint8Array>) {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => events.push(e) });
  const dec = new TextDecoder();
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(dec.decode(value, { stream: true }));
  }
  return events;
}

describe("SSE encoding", () => {
  it("round-trips through a standard SSE parser, newlines included", async () => {
    const text = 'line one\nline two: "quoted"';
    const s = eventStream(async (emit) => {
      emit({ type: "chip", data: { callId: "c1", label: "Checking", state: "start" } });
      emit({ type: "delta", data: { text } });
      emit({ type: "done", data: { conversationId: "c", messageId: "m" } });
    });
    const events = await readAll(s);
    expect(events.map((e) => e.event)).toEqual(["chip", "delta", "done"]);
    expect(JSON.parse(events[1]!.data)).toEqual({ text });
    expect(encodeEvent({ type: "delta", data: { text } }).split("\n\n")).toHaveLength(2);
  });

  it("aborts the turn's signal when the reader cancels", async () => {
    let seen: AbortSignal | undefined;
    const { promise: running, resolve: release } = deferred();
    const s = eventStream(async (emit, signal) => {
      seen = signal;
      emit({ type: "delta", data: { text: "hi" } });
      await new Promise<void>((r) => signal.addEventListener("abort", () => r()));
      release();
    });
    const reader = s.getReader();
    await reader.read();
    await reader.cancel();
    await running;
    expect(seen?.aborted).toBe(true);
  });

  it("aborts the turn's signal when the request's signal aborts", async () => {
    const req = new AbortController();
    let seen: AbortSignal | undefined;
    const s = eventStream(
      async (_emit, signal) => {
        seen = signal;
        await new Promise<void>((r) => signal.addEventListener("abort", () => r()));
      },
      { signal: req.signal },
    );
    const reading = readAll(s);
    req.abort();
    await reading;
    expect(seen?.aborted).toBe(true);
  });
});

describe("stream slots", () => {
  it("caps open streams per tenant and frees a slot once", () => {
    const t = "tenant-slots-test";
    const a = acquireStreamSlot(t, 2);
    const b = acquireStreamSlot(t, 2);
    expect(() => acquireStreamSlot(t, 2)).toThrow(expect.objectContaining({ code: "rate_limited" }));
    expect(acquireStreamSlot("another-tenant", 2)).toBeTypeOf("function");
    a();
    a();
    expect(openStreams(t)).toBe(1);
    const c = acquireStreamSlot(t, 2);
    b();
    c();
    expect(openStreams(t)).toBe(0);
  });

  it("takes the tenant's overrides over the operator defaults, ignoring nonsense", () => {
    const e = {
      MICHI_RATE_VISITOR_PER_MIN: 20,
      MICHI_RATE_IP_PER_MIN: 60,
      MICHI_RATE_TENANT_PER_MIN: 600,
      MICHI_MAX_STREAMS_PER_TENANT: 50,
    };
    expect(limitSettings(e, { visitorPerMin: 5, maxStreams: 0, ipPerMin: 1.5 })).toEqual({
      visitorPerMin: 5,
      ipPerMin: 60,
      tenantPerMin: 600,
      maxStreams: 50,
    });
    expect(limitSettings(e, null).visitorPerMin).toBe(20);
  });
});
