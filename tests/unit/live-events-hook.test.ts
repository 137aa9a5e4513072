import { parseHTML } from "linkedom";
import { act, createElement } from "react";
import { createRoot } from "react-dom/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { useLiveEvents } from "@/components/live/use-live-events";
import type { LiveEvent } from "@/shared/live-events";

// The console's hook (src/components/live/use-live-events.ts) with a scripted EventSource: it starts where
// the server says it caught up, hands each event on once, and when the server refuses a reconnection it
// opens a new stream after the last seq it has.

class FakeSource {
  static CLOSED = 2;
  static all: FakeSource[] = [];
  readyState = 0;
  onerror: (() => void) | null = null;
  listeners = new Map<string, ((m: { data: string }) => void)[]>();
  constructor(readonly url: string) {
    FakeSource.all.push(this);
  }
  addEventListener(kind: string, fn: (m: { data: string }) => void) {
    this.listeners.set(kind, [...(this.listeners.get(kind) ?? []), fn]);
  }
  emit(kind: string, data: unknown) {
    for (const fn of this.listeners.get(kind) ?? []) fn({ data: JSON.stringify(data) });
  }
  close() {
    this.readyState = FakeSource.CLOSED;
  }
}

const note = (seq: number): LiveEvent => ({
  seq,
  conversationId: "c",
  kind: "note",
  data: { text: `n${seq}`, author: { id: "a", name: "Ana" } },
  at: "2026-12-02T00:00:00.000Z",
});

function Probe({ onEvent }: { onEvent: (e: LiveEvent) => void }) {
  useLiveEvents("shop", onEvent);
  return null;
}

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
  FakeSource.all = [];
});

describe("useLiveEvents", () => {
  it("hands each event on once, in order, and resumes after the last seq when a stream is refused", async () => {
    const { window, document } = parseHTML("<html><body><div id=root></div></body></html>");
    vi.stubGlobal("window", window);
    vi.stubGlobal("document", document);
    vi.stubGlobal("EventSource", FakeSource);
    (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
    vi.useFakeTimers();
    const got: number[] = [];
    const root = createRoot(document.getElementById("root") as unknown as Element);
    await act(async () => root.render(createElement(Probe, { onEvent: (e: LiveEvent) => got.push(e.seq) })));
    const first = FakeSource.all[0]!;
    expect(first.url).toBe("/api/admin/shop/live/events");
    await act(async () => {
      first.emit("ready", { seq: 7 });
      first.emit("note", note(8));
      first.emit("note", note(8));
      first.emit("note", note(9));
      first.readyState = FakeSource.CLOSED;
      first.onerror?.();
    });
    await act(async () => vi.advanceTimersByTime(1000));
    const second = FakeSource.all[1]!;
    expect(second.url).toBe("/api/admin/shop/live/events?after=9");
    await act(async () => {
      second.emit("note", note(9));
      second.emit("note", note(10));
    });
    expect(got).toEqual([8, 9, 10]);
    await act(async () => root.unmount());
  });
});
