import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeLiveWakes } from "@/lib/live/bus";
import { liveEventStream } from "@/lib/live/stream";
import { VISITOR_LIVE_KINDS } from "@/shared/live-events";
import { type ChatWorld, startChatWorld } from "../support/chat-world";
import { visitorConversation } from "../support/live";

// Held live streams keep their connections open with an SSE comment. Streams opened in the same moment (a
// burst of visitors, every client of a restarted instance reconnecting at once) must not beat in the same
// moment for as long as they are held: each one's first beat falls somewhere in the interval.

let w: ChatWorld;
beforeAll(async () => {
  w = await startChatWorld();
});
afterAll(async () => {
  await closeLiveWakes();
  await w?.close();
});

/** Opens a stream and records when each keep-alive comment arrives (ms after `t0`). */
function beats(stream: ReadableStream<Uint8Array>, t0: number) {
  const at: number[] = [];
  const reader = stream.getReader();
  const dec = new TextDecoder();
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        if (dec.decode(value).includes(": keep-alive")) at.push(performance.now() - t0);
      }
    } catch {}
  })();
  return { at, stop: () => void reader.cancel().catch(() => {}) };
}

describe("held streams' keep-alive", () => {
  it("spreads the beats of streams opened together over the interval, each still beating every interval", async () => {
    const tenant = await w.tenant();
    const token = await w.token(tenant.widgetKey);
    const ids = await Promise.all(
      Array.from({ length: 24 }, () =>
        visitorConversation(w.db, tenant, token, process.env.MICHI_AUTH_SECRET!),
      ),
    );
    const beatMs = 1500;
    const t0 = performance.now();
    const streams = ids.map((conversationId) =>
      beats(
        liveEventStream({
          db: w.db,
          tenantId: tenant.id,
          conversationId,
          kinds: VISITOR_LIVE_KINDS,
          after: 0,
          heartbeatMs: beatMs,
        }),
        t0,
      ),
    );
    try {
      await expect.poll(() => streams.every((s) => s.at.length >= 2), { timeout: 10_000 }).toBe(true);
      const first = streams.map((s) => s.at[0]!);
      // 24 beats landing uniformly in 1.5 s span less than half of it about once in 670,000 runs
      // (24/2^23 - 23/2^24); beats started together all land within a few ms of each other.
      expect(Math.max(...first) - Math.min(...first)).toBeGreaterThan(beatMs / 2);
      for (const s of streams) {
        expect(s.at[0]!).toBeLessThan(beatMs + 1000);
        // After the first, one beat per interval: the rate of keep-alives does not change.
        expect(s.at[1]! - s.at[0]!).toBeGreaterThan(beatMs / 2);
      }
    } finally {
      for (const s of streams) s.stop();
    }
  });
});
