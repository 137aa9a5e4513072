import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DbHandle } from "@/lib/db/client";
import { appendLiveEvent } from "@/lib/db/queries/live-events";
import type { tenants } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { closeLiveWakes, liveListenConnected, onLiveWake, wakeLive } from "@/lib/live/bus";
import { liveEventStream } from "@/lib/live/stream";
import { type LiveEventData, type LiveKind, VISITOR_LIVE_KINDS } from "@/shared/live-events";
import { type ChatWorld, startChatWorld } from "../support/chat-world";
import { liveCount, readLive, readyCount, visitorConversation } from "../support/live";

// The tenant's shared reader of held live streams (src/lib/live/feed.ts): one read of the log per wake-up
// for all of a tenant's streams in this process, each stream still getting exactly its own rows, once and in
// order, including a stream that joins while rows are being appended.

type Tenant = typeof tenants.$inferSelect;
let w: ChatWorld;
let db: DbHandle;
let reads = 0;
beforeAll(async () => {
  w = await startChatWorld();
  // A handle of its own that counts the streams' reads (the feed and the catching-up reads alike).
  db = {
    ...w.db,
    tenantCall: (fn, tenantId, args) => {
      if (fn === "michi_read_live_events") reads++;
      return w.db.tenantCall(fn, tenantId, args);
    },
  };
});
afterAll(async () => {
  await closeLiveWakes();
  await w?.close();
});

async function append<K extends LiveKind>(
  tenant: Tenant,
  conversationId: string,
  kind: K,
  data: LiveEventData[K],
) {
  const seq = await w.db.forTenant(tenant.id, (tx) => appendLiveEvent(tx, { conversationId, kind, data }));
  wakeLive(tenant.id, conversationId);
  return seq;
}
const agent = { id: "00000000-0000-4000-8000-000000000001", name: "Ana" };
const say = (text: string) => ({ messageId: crypto.randomUUID(), text, agent });

async function conversation(tenant: Tenant) {
  const token = await w.token(tenant.widgetKey);
  return visitorConversation(w.db, tenant, token, process.env.MICHI_AUTH_SECRET!);
}
const visitorStream = (tenant: Tenant, id: string, after = 0) =>
  readLive(
    new Response(
      liveEventStream({ db, tenantId: tenant.id, conversationId: id, kinds: VISITOR_LIVE_KINDS, after }),
    ),
  );
const consoleStream = (tenant: Tenant, after: number) =>
  readLive(new Response(liveEventStream({ db, tenantId: tenant.id, after })));

describe("the tenant's live feed", () => {
  it("reads the log once per message for the console and the visitors' streams, each getting its own", async () => {
    const tenant = await w.tenant();
    const x = await conversation(tenant);
    const y = await conversation(tenant);
    const start = await append(tenant, x, "state", { state: "person", agent });
    // On Postgres, LISTEN connecting wakes every held stream once (wake-ups may have been lost until then): let
    // it connect before the streams open, or that read lands among the counted ones.
    const off = onLiveWake(db, tenant.id, () => {});
    if (db.kind === "pg" && !env().REDIS_URL) await expect.poll(() => liveListenConnected(db)).toBe(true);
    off();
    const streams = [
      consoleStream(tenant, start),
      visitorStream(tenant, x, start),
      visitorStream(tenant, y, start),
    ];
    await Promise.all(streams.map((s) => s.until((m) => readyCount(m) === 1)));
    const [panel, sx, sy] = streams as [
      ReturnType<typeof readLive>,
      ReturnType<typeof readLive>,
      ReturnType<typeof readLive>,
    ];
    reads = 0;
    // One at a time, each delivered before the next, so no read can serve two of them.
    await append(tenant, x, "agent_message", say("hello x"));
    await sx.until((m) => liveCount(m) === 1);
    await panel.until((m) => liveCount(m) === 1);
    await append(tenant, x, "note", { text: "asked twice already", author: agent });
    await panel.until((m) => liveCount(m) === 2);
    await append(tenant, y, "visitor_message", { messageId: crypto.randomUUID(), text: "hi from y" });
    await sy.until((m) => liveCount(m) === 1);
    await panel.until((m) => liveCount(m) === 3);
    // One read each; before the feed, each message cost a read per woken stream (2 for x's, 2 for y's).
    expect(reads).toBe(3);
    expect(panel.seen()).toEqual([
      "agent_message:hello x",
      "note:asked twice already",
      "visitor_message:hi from y",
    ]);
    expect(sx.seen()).toEqual(["agent_message:hello x"]);
    expect(sy.seen()).toEqual(["visitor_message:hi from y"]);
    await Promise.all(streams.map((s) => s.close()));
  });

  it("delivers every row once and in order to streams that join while rows are being appended", async () => {
    const tenant = await w.tenant();
    const id = await conversation(tenant);
    const other = await conversation(tenant);
    const total = 40;
    const joiners: ReturnType<typeof readLive>[] = [];
    // A console held from the start keeps the feed reading while the others catch up and join.
    const first = consoleStream(tenant, 0);
    await first.until((m) => readyCount(m) === 1);
    for (let i = 0; i < total; i++) {
      // Rows of another conversation in between, so the feed's position moves past rows a visitor skips.
      await Promise.all([
        append(tenant, id, "agent_message", say(`m${i}`)),
        append(tenant, other, "agent_message", say(`o${i}`)),
      ]);
      if (i % 8 === 0) joiners.push(visitorStream(tenant, id), consoleStream(tenant, 0));
    }
    const all = [first, ...joiners];
    await Promise.all(
      all.map((s, k) => s.until((m) => liveCount(m) === (k === 0 || k % 2 === 0 ? 2 * total : total))),
    );
    const expectedVisitor = Array.from({ length: total }, (_, i) => `agent_message:m${i}`);
    for (const [k, s] of all.entries()) {
      const seqs = s.messages.filter((m) => m.event !== "ready").map((m) => Number(m.id));
      expect(new Set(seqs).size).toBe(seqs.length);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      if (k > 0 && k % 2 === 1) expect(s.seen()).toEqual(expectedVisitor);
      else expect(s.seen().filter((t) => t.includes(":m"))).toEqual(expectedVisitor);
    }
    await Promise.all(all.map((s) => s.close()));
  });

  it("re-reads on the slow timer once for the tenant's held streams, not once per stream", async () => {
    const tenant = await w.tenant();
    const ids = await Promise.all(Array.from({ length: 8 }, () => conversation(tenant)));
    const resyncMs = 200;
    const streams = ids.map((id) =>
      readLive(
        new Response(liveEventStream({ db, tenantId: tenant.id, conversationId: id, after: 0, resyncMs })),
      ),
    );
    await Promise.all(streams.map((s) => s.until((m) => readyCount(m) === 1)));
    reads = 0;
    const windowMs = 1200;
    await new Promise((r) => setTimeout(r, windowMs));
    const perStream = windowMs / resyncMs;
    // Each stream's own timer would have read about 8 × 6 = 48 times; the feed reads at most every
    // resyncMs × 0.75 / 2 (the shortest timer's half), whoever's timer fires.
    expect(reads).toBeGreaterThan(0);
    expect(reads).toBeLessThanOrEqual(Math.ceil(windowMs / ((resyncMs * 0.75) / 2)) + 1);
    expect(reads).toBeLessThan(streams.length * perStream * 0.5);
    await Promise.all(streams.map((s) => s.close()));
  });
});
