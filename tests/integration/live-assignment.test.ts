import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Role, TenantContext } from "@/lib/auth/access";
import { readLiveEvents } from "@/lib/db/queries/live-events";
import { writeLiveSettings } from "@/lib/db/queries/live-presence";
import { conversations, livePresence, type tenants } from "@/lib/db/schema";
import { recordPresence } from "@/lib/live/presence";
import { requestPerson } from "@/lib/live/request";
import { assignConversation, claimConversation, handBackConversation } from "@/lib/live/takeover";
import { type JobQueue, setProcessQueue } from "@/lib/queue";
import { makeTenant, makeUser } from "../support/admin-world";
import { freshDb, type TestDb } from "../support/db";

// Who gets a waiting visitor (issue #28): a person is offered only when an agent is online (a heartbeat of the
// open console, not away) and the business is open; round-robin among the online agents, under the
// per-agent limit, whoever was given one longest ago first; assigning checks the teammate.

let t: TestDb;
let shop: typeof tenants.$inferSelect;
let ana: Awaited<ReturnType<typeof makeUser>>;
let ben: Awaited<ReturnType<typeof makeUser>>;
let vera: Awaited<ReturnType<typeof makeUser>>;
let n = 0;

// The escalation job each request queues is tested in live-escalation.test.ts; here it is only recorded.
const queued: { name: string; startAfterSeconds?: number }[] = [];
const queue: JobQueue = {
  sendIn: async (_tx, name, _data, opts) => {
    queued.push({ name, startAfterSeconds: opts?.startAfterSeconds });
    return "job";
  },
  send: async () => "job",
  stop: async () => {},
};

const ctx = (user: typeof ana, role: Role = "admin"): TenantContext => ({
  user: { ...user, isOperator: false, mustChangePassword: false },
  tenant: shop,
  role,
  db: t.handle,
});

async function conversation(): Promise<{ id: string; visitorId: string }> {
  const visitorId = `visitor-${++n}`;
  const [c] = await t.handle.platform
    .insert(conversations)
    .values({ tenantId: shop.id, visitorId })
    .returning();
  return { id: c!.id, visitorId };
}

const ask = (c: { id: string; visitorId: string }, now?: Date) =>
  requestPerson(t.handle, { tenantId: shop.id, visitorId: c.visitorId, conversationId: c.id }, now);

async function agentOf(id: string) {
  const [row] = await t.handle.platform.select().from(conversations).where(eq(conversations.id, id));
  return { state: row!.liveState, agent: row!.liveAgentId };
}

beforeAll(async () => {
  t = await freshDb();
  setProcessQueue(queue);
  ana = await makeUser(t.handle, "ana@shop.example", { name: "Ana" });
  ben = await makeUser(t.handle, "ben@shop.example", { name: "Ben" });
  vera = await makeUser(t.handle, "vera@shop.example", { name: "Vera" });
  shop = await makeTenant(t.handle, "live-shop", [
    [ana, "owner"],
    [ben, "admin"],
    [vera, "viewer"],
  ]);
});

afterAll(async () => {
  setProcessQueue(null);
  await t?.close();
});

beforeEach(async () => {
  await t.handle.platform.delete(livePresence);
  await t.handle.platform.update(conversations).set({ liveState: "bot", liveAgentId: null });
  await t.handle.forTenant(shop.id, (tx) =>
    writeLiveSettings(tx, shop.id, { maxPerAgent: 3, escalateAfterMin: 5, hours: null, savedReplies: [] }),
  );
});

describe("asking for a person", () => {
  it("with nobody online: the contact form, nothing changes", async () => {
    const c = await conversation();
    expect(await ask(c)).toEqual({ live: false, reason: "nobody_online" });
    expect(await agentOf(c.id)).toEqual({ state: "bot", agent: null });
  });

  it("an agent who is away, or whose console went quiet, is not online", async () => {
    await recordPresence(ctx(ana), { away: "true" });
    await recordPresence(ctx(ben), {});
    await t.handle.platform
      .update(livePresence)
      .set({ seenAt: new Date(Date.now() - 10 * 60_000) })
      .where(eq(livePresence.userId, ben.id));
    expect(await ask(await conversation())).toEqual({ live: false, reason: "nobody_online" });
  });

  it("outside the business's hours: the contact form, even with an agent online", async () => {
    await recordPresence(ctx(ana), {});
    await t.handle.forTenant(shop.id, (tx) =>
      writeLiveSettings(tx, shop.id, {
        maxPerAgent: 3,
        escalateAfterMin: 5,
        hours: { timeZone: "Europe/Madrid", days: { 3: { open: "09:00", close: "18:00" } } },
        savedReplies: [],
      }),
    );
    // Wednesday 2 December 2026: 08:30 in Madrid is closed, 10:00 open; Ana's console beat at 09:59.
    await t.handle.platform.update(livePresence).set({ seenAt: new Date("2026-12-02T08:59:50Z") });
    expect(await ask(await conversation(), new Date("2026-12-02T07:30:00Z"))).toEqual({
      live: false,
      reason: "closed",
    });
    expect(await ask(await conversation(), new Date("2026-12-02T09:00:00Z"))).toMatchObject({ live: true });
  });

  it("waits for a person, in the log, and a second ask changes nothing", async () => {
    await recordPresence(ctx(ana), {});
    const c = await conversation();
    expect(await ask(c)).toEqual({ live: true, state: "waiting", conversationId: c.id });
    expect(await ask(c)).toEqual({ live: true, state: "waiting", conversationId: c.id });
    const events = await readLiveEvents(t.handle, shop.id, { after: 0, conversationId: c.id, limit: 50 });
    expect(events.map((e) => e.kind)).toEqual(["state", "assigned"]);
    // Unclaimed after the business's 5 minutes: the escalation job waits that long.
    expect(queued.at(-1)).toEqual({ name: "live-escalation", startAfterSeconds: 300 });
  });

  it("someone else's conversation looks like a missing one", async () => {
    await recordPresence(ctx(ana), {});
    const c = await conversation();
    await expect(ask({ id: c.id, visitorId: "someone-else" })).rejects.toMatchObject({ code: "not_found" });
  });
});

describe("round-robin among online agents", () => {
  it("alternates, respects the per-agent limit, and leaves the rest waiting unassigned", async () => {
    await t.handle.forTenant(shop.id, (tx) =>
      writeLiveSettings(tx, shop.id, { maxPerAgent: 1, escalateAfterMin: 5, hours: null, savedReplies: [] }),
    );
    await recordPresence(ctx(ana), {});
    await recordPresence(ctx(ben), {});
    // A viewer's console is never a presence: refused.
    await expect(recordPresence(ctx(vera, "viewer"), {})).rejects.toMatchObject({ code: "forbidden" });
    const [one, two, three] = [await conversation(), await conversation(), await conversation()];
    await ask(one);
    await ask(two);
    await ask(three);
    const given = [(await agentOf(one.id)).agent, (await agentOf(two.id)).agent];
    expect(new Set(given)).toEqual(new Set([ana.id, ben.id]));
    expect(await agentOf(three.id)).toEqual({ state: "waiting", agent: null });

    // Ana hands hers back: she has room again, and the next visitor goes to her.
    const anas = given[0] === ana.id ? one : two;
    await claimConversation(ctx(ana), { conversationId: anas.id });
    await handBackConversation(ctx(ana), { conversationId: anas.id });
    const four = await conversation();
    await ask(four);
    expect((await agentOf(four.id)).agent).toBe(ana.id);
  });

  it("assigns and transfers only to an admin or owner of the business", async () => {
    await recordPresence(ctx(ana), {});
    const c = await conversation();
    await ask(c);
    await expect(
      assignConversation(ctx(ana), { conversationId: c.id, agentId: vera.id }),
    ).rejects.toMatchObject({ code: "not_found" });
    await assignConversation(ctx(ana), { conversationId: c.id, agentId: ben.id });
    expect(await agentOf(c.id)).toEqual({ state: "waiting", agent: ben.id });
    await claimConversation(ctx(ben), { conversationId: c.id });
    // Ana cannot take it from Ben by claiming; a transfer moves it.
    await expect(claimConversation(ctx(ana), { conversationId: c.id })).rejects.toMatchObject({
      code: "conflict",
    });
    await assignConversation(ctx(ben), { conversationId: c.id, agentId: ana.id });
    expect(await agentOf(c.id)).toEqual({ state: "person", agent: ana.id });
  });
});
