import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Role, TenantContext } from "@/lib/auth/access";
import type { TenantTx } from "@/lib/db/client";
import { forTenantAudited, type RecordAudit } from "@/lib/db/queries/audit";
import { setLiveState } from "@/lib/db/queries/live-conversations";
import { readLiveEvents } from "@/lib/db/queries/live-events";
import { writeLiveSettings } from "@/lib/db/queries/live-presence";
import { auditLog, conversations, livePresence, type tenants } from "@/lib/db/schema";
import { recordPresence } from "@/lib/live/presence";
import { sendAgentReply } from "@/lib/live/reply";
import { requestPerson } from "@/lib/live/request";
import { updateLiveSettings } from "@/lib/live/settings";
import {
  assignConversation,
  claimConversation,
  closeLiveConversation,
  handBackConversation,
} from "@/lib/live/takeover";
import { assignWaiting } from "@/lib/live/transition";
import { type JobQueue, setProcessQueue } from "@/lib/queue";
import { makeTenant, makeUser } from "../support/admin-world";
import { freshDb, type TestDb } from "../support/db";
import { deferred } from "../support/deferred";

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

// Each acts with the role they hold in the shop (Ana owner, Ben admin, Vera viewer) unless told otherwise.
const ctx = (user: typeof ana, role?: Role): TenantContext => ({
  user: { ...user, isOperator: false, mustChangePassword: false },
  tenant: shop,
  role: role ?? (user === ana ? "owner" : user === ben ? "admin" : "viewer"),
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

async function limit(maxPerAgent: number) {
  await t.handle.forTenant(shop.id, (tx) =>
    writeLiveSettings(tx, shop.id, { maxPerAgent, escalateAfterMin: 5, hours: null, savedReplies: [] }),
  );
}

// Visitors who ask one after another, a second apart, so "who waited longest" never ties on a millisecond.
let clock = Date.now();
async function askInTurn(count: number) {
  const asked: { id: string; visitorId: string }[] = [];
  for (let i = 0; i < count; i++) {
    const c = await conversation();
    clock = Math.max(clock + 1000, Date.now());
    await ask(c, new Date(clock));
    asked.push(c);
  }
  return asked;
}

async function assignedEvents(conversationId: string) {
  const events = await readLiveEvents(t.handle, shop.id, { after: 0, conversationId, limit: 50 });
  return events.flatMap((e) => (e.kind === "assigned" ? [e.data.agent.id] : []));
}

async function assignedAudit(conversationId: string) {
  const rows = await t.handle.platform
    .select({ details: auditLog.details })
    .from(auditLog)
    .where(and(eq(auditLog.action, "live.assigned"), eq(auditLog.target, conversationId)));
  return rows.map((r) => {
    const d = r.details as { to: string; by?: string };
    return { to: d.to, by: d.by };
  });
}

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
    // No live history yet: no usual wait to tell; the contact form is offered after the 5-minute alert delay.
    const waiting = {
      live: true,
      state: "waiting",
      conversationId: c.id,
      expectedWaitMin: null,
      offerContactAfterSec: 300,
    };
    expect(await ask(c)).toEqual(waiting);
    expect(await ask(c)).toEqual(waiting);
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
    await limit(1);
    await recordPresence(ctx(ana), {});
    await recordPresence(ctx(ben), {});
    // A viewer's console is never a presence: refused.
    await expect(recordPresence(ctx(vera, "viewer"), {})).rejects.toMatchObject({ code: "forbidden" });
    const [one, two, three] = await askInTurn(3);
    const given = [(await agentOf(one!.id)).agent, (await agentOf(two!.id)).agent];
    expect(new Set(given)).toEqual(new Set([ana.id, ben.id]));
    expect(await agentOf(three!.id)).toEqual({ state: "waiting", agent: null });

    // Ana hands hers back: her free slot goes to the visitor waiting longest, not to the next to ask.
    const anas = given[0] === ana.id ? one! : two!;
    await claimConversation(ctx(ana), { conversationId: anas.id });
    await handBackConversation(ctx(ana), { conversationId: anas.id });
    expect(await agentOf(three!.id)).toEqual({ state: "waiting", agent: ana.id });
    const four = await conversation();
    await ask(four);
    expect(await agentOf(four.id)).toEqual({ state: "waiting", agent: null });
  });
});

describe("the waiting queue, oldest first, whenever room appears", () => {
  it("a slot freed by a close goes to the oldest waiting visitor, audited and in the log", async () => {
    await limit(1);
    await recordPresence(ctx(ana), {});
    const [one, two, three] = await askInTurn(3);
    expect((await agentOf(one!.id)).agent).toBe(ana.id);
    await claimConversation(ctx(ana), { conversationId: one!.id });
    await closeLiveConversation(ctx(ana), { conversationId: one!.id });
    expect(await agentOf(two!.id)).toEqual({ state: "waiting", agent: ana.id });
    expect(await agentOf(three!.id)).toEqual({ state: "waiting", agent: null });
    expect(await assignedEvents(two!.id)).toEqual([ana.id]);
    expect(await assignedAudit(two!.id)).toEqual([{ to: ana.id, by: "round-robin" }]);
  });

  it("a transfer away frees the giver's slot for the queue", async () => {
    await limit(1);
    await recordPresence(ctx(ana), {});
    await recordPresence(ctx(ben), {});
    const [one, two, three] = await askInTurn(3);
    const anas = (await agentOf(one!.id)).agent === ana.id ? one! : two!;
    const bens = anas === one ? two! : one!;
    await claimConversation(ctx(ben), { conversationId: bens.id });
    // Ana (the owner) takes Ben's over: Ben has room again and the waiting visitor is his.
    await claimConversation(ctx(ana), { conversationId: bens.id });
    expect(await agentOf(three!.id)).toEqual({ state: "waiting", agent: ben.id });
    const [fourth] = await askInTurn(1);
    // Ben passes the third to Ana (a person's move may go past a limit); the queue gets Ben's slot.
    await assignConversation(ctx(ben), { conversationId: three!.id, agentId: ana.id });
    expect(await agentOf(fourth!.id)).toEqual({ state: "waiting", agent: ben.id });
  });

  it("an agent coming online, or back from away, picks up the queue", async () => {
    await limit(1);
    await recordPresence(ctx(ana), {});
    const [, two, three] = await askInTurn(3);
    expect(await agentOf(two!.id)).toEqual({ state: "waiting", agent: null });
    // Ben's console opens: his first heartbeat takes the visitor waiting longest.
    await recordPresence(ctx(ben), {});
    expect(await agentOf(two!.id)).toEqual({ state: "waiting", agent: ben.id });
    expect(await agentOf(three!.id)).toEqual({ state: "waiting", agent: null });
    // Ben, now at his limit, goes away: the visitor the round-robin gave him, unclaimed, is in line again (the
    // first in it), but Ana has no room yet.
    await recordPresence(ctx(ben), { away: "true" });
    expect(await agentOf(two!.id)).toEqual({ state: "waiting", agent: ben.id });
    // A higher limit gives Ana room: the oldest in line first, Ben's then the third; not Ben while away.
    await t.handle.forTenant(shop.id, (tx) =>
      writeLiveSettings(tx, shop.id, { maxPerAgent: 3, escalateAfterMin: 5, hours: null, savedReplies: [] }),
    );
    const [four] = await askInTurn(1);
    expect(await agentOf(two!.id)).toEqual({ state: "waiting", agent: ana.id });
    expect(await agentOf(three!.id)).toEqual({ state: "waiting", agent: ana.id });
    expect(await agentOf(four!.id)).toEqual({ state: "waiting", agent: null });
    // Back from away, Ben's beat takes the one waiting; one he has claimed stays his while he is away, and
    // ending it then leaves room that is not his to fill until he is back.
    await recordPresence(ctx(ben), { away: "false" });
    expect(await agentOf(four!.id)).toEqual({ state: "waiting", agent: ben.id });
    await claimConversation(ctx(ben), { conversationId: four!.id });
    await recordPresence(ctx(ben), { away: "true" });
    expect(await agentOf(four!.id)).toEqual({ state: "person", agent: ben.id });
    const [five] = await askInTurn(1);
    await closeLiveConversation(ctx(ben), { conversationId: four!.id });
    expect(await agentOf(five!.id)).toEqual({ state: "waiting", agent: null });
    await recordPresence(ctx(ben), { away: "false" });
    expect(await agentOf(five!.id)).toEqual({ state: "waiting", agent: ben.id });
  });

  it("a visitor given to an agent whose console then closed goes to one online; a person's choice stays", async () => {
    await limit(1);
    await recordPresence(ctx(ana), {});
    const [one, two] = await askInTurn(2);
    expect(await agentOf(one!.id)).toEqual({ state: "waiting", agent: ana.id });
    // Ben (an admin) gives the second, waiting unassigned, to Ana himself (a person may go past the limit).
    await assignConversation(ctx(ben), { conversationId: two!.id, agentId: ana.id });
    // Ana's console closes (no beat for ten minutes), Ben's opens: his first beat takes the visitor the
    // round-robin gave her, and leaves the one he chose for her.
    await t.handle.platform
      .update(livePresence)
      .set({ seenAt: new Date(Date.now() - 10 * 60_000) })
      .where(eq(livePresence.userId, ana.id));
    await recordPresence(ctx(ben), {});
    expect(await agentOf(one!.id)).toEqual({ state: "waiting", agent: ben.id });
    expect(await agentOf(two!.id)).toEqual({ state: "waiting", agent: ana.id });
    // The visitor's panel is told who now has them; the audit says from whom.
    expect(await assignedEvents(one!.id)).toEqual([ana.id, ben.id]);
    const moves = await t.handle.platform
      .select({ details: auditLog.details })
      .from(auditLog)
      .where(and(eq(auditLog.action, "live.assigned"), eq(auditLog.target, one!.id)))
      .orderBy(auditLog.createdAt);
    expect(moves.map((m) => m.details)).toEqual([
      { to: ana.id, from: null, by: "round-robin" },
      { to: ben.id, from: ana.id, by: "round-robin" },
    ]);
  });

  it("nobody online with room: the visitor stays with the agent who left until someone can take them", async () => {
    await limit(1);
    await recordPresence(ctx(ana), {});
    await recordPresence(ctx(ben), {});
    const [one, two] = await askInTurn(2);
    const anas = (await agentOf(one!.id)).agent === ana.id ? one! : two!;
    const bens = anas === one ? two! : one!;
    await claimConversation(ctx(ben), { conversationId: bens.id });
    await recordPresence(ctx(ana), { away: "true" });
    // Ben is at his limit: Ana's visitor keeps her name (their panel says so) until room appears.
    expect(await agentOf(anas.id)).toEqual({ state: "waiting", agent: ana.id });
    await closeLiveConversation(ctx(ben), { conversationId: bens.id });
    expect(await agentOf(anas.id)).toEqual({ state: "waiting", agent: ben.id });
  });
});

// Two assignments at once, with the order forced: the first is held open inside its transaction (it has
// given a visitor to an agent, not yet committed) while the second runs. The second must wait for it and
// then count what it did; were it to read the loads before the first commits, it would hand out the same
// free slot twice. PGlite runs one transaction at a time, so only Postgres can race.
describe.skipIf(!process.env.DATABASE_URL)("two assignments at the same moment", () => {
  /** Runs `second` while `first` holds its transaction open; returns when both are done. */
  async function whileHeld(
    first: (tx: TenantTx, record: RecordAudit) => Promise<void>,
    second: () => Promise<void>,
  ) {
    const { promise: released, resolve: release } = deferred();
    const { promise: held, resolve: holding } = deferred();
    const one = forTenantAudited(t.handle, shop.id, null, async (tx, record) => {
      await first(tx, record);
      holding();
      await released;
    });
    await held;
    const two = second();
    // Let the second run until it either finishes or stands waiting for the first's lock.
    const done = two.then(() => "done" as const);
    while ((await Promise.race([done, blockedOnAssignLock()])) === false) {}
    release();
    await Promise.all([one, two]);
  }

  async function blockedOnAssignLock(): Promise<boolean> {
    await new Promise((r) => setTimeout(r, 20));
    const rows = await t.handle.platform.execute(
      sql`select 1 from pg_locks where locktype = 'advisory' and not granted and objsubid = 2`,
    );
    return (rows as unknown as { rows: unknown[] }).rows.length > 0;
  }

  it("two slots freed at once give each waiting visitor once, oldest first", async () => {
    await limit(1);
    await recordPresence(ctx(ana), {});
    await recordPresence(ctx(ben), {});
    const [one, two, three, four, five] = await askInTurn(5);
    const anas = (await agentOf(one!.id)).agent === ana.id ? one! : two!;
    const bens = anas === one ? two! : one!;
    await whileHeld(
      async (tx, record) => {
        await setLiveState(tx, anas.id, { state: "closed", agentId: null });
        expect(await assignWaiting(tx, shop.id, record)).toEqual([three!.id]);
      },
      () => closeLiveConversation(ctx(ben), { conversationId: bens.id }),
    );
    expect(await agentOf(three!.id)).toEqual({ state: "waiting", agent: ana.id });
    expect(await agentOf(four!.id)).toEqual({ state: "waiting", agent: ben.id });
    expect(await agentOf(five!.id)).toEqual({ state: "waiting", agent: null });
    expect([await assignedEvents(three!.id), await assignedEvents(four!.id)]).toEqual([[ana.id], [ben.id]]);
  });

  /** Visitors left in line while an agent has room (as when a row was busy the moment a slot freed). */
  async function leftInLine(count: number) {
    const left: { id: string; visitorId: string }[] = [];
    for (let i = 0; i < count; i++) {
      const c = await conversation();
      clock += 1000;
      await t.handle.platform
        .update(conversations)
        .set({ liveState: "waiting", liveAgentId: null, liveRequestedAt: new Date(clock) })
        .where(eq(conversations.id, c.id));
      left.push(c);
    }
    return left;
  }

  it("a visitor asking while a free slot is being filled waits instead of going over the limit", async () => {
    await limit(1);
    await recordPresence(ctx(ana), {});
    const [two] = await leftInLine(1);
    const three = await conversation();
    await whileHeld(
      async (tx, record) => {
        expect(await assignWaiting(tx, shop.id, record)).toEqual([two!.id]);
      },
      () => ask(three, new Date(clock + 1000)).then(() => {}),
    );
    expect(await agentOf(two!.id)).toEqual({ state: "waiting", agent: ana.id });
    expect(await agentOf(three.id)).toEqual({ state: "waiting", agent: null });
  });

  it("a second look at the queue while the first is filling a slot counts that slot as taken", async () => {
    await limit(1);
    await recordPresence(ctx(ana), {});
    const [one, two] = await leftInLine(2);
    await whileHeld(
      async (tx, record) => {
        expect(await assignWaiting(tx, shop.id, record)).toEqual([one!.id]);
      },
      // Saving the live settings looks at the queue too (a higher limit is room).
      () =>
        updateLiveSettings(ctx(ana), {
          maxPerAgent: 1,
          escalateAfterMin: 5,
          timeZone: "",
          open: "",
          close: "",
          savedReplies: "",
        }),
    );
    expect(await agentOf(one!.id)).toEqual({ state: "waiting", agent: ana.id });
    expect(await agentOf(two!.id)).toEqual({ state: "waiting", agent: null });
  });
});

describe("who may take a conversation a teammate has", () => {
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
    await assignConversation(ctx(ben), { conversationId: c.id, agentId: ana.id });
    expect(await agentOf(c.id)).toEqual({ state: "person", agent: ana.id });
  });

  it("an admin claims only an unassigned conversation or their own; an owner may take over", async () => {
    await recordPresence(ctx(ana), {});
    const c = await conversation();
    await ask(c);
    expect((await agentOf(c.id)).agent).toBe(ana.id);
    // Ben (an admin) can neither claim Ana's waiting visitor nor move it to himself.
    await expect(claimConversation(ctx(ben), { conversationId: c.id })).rejects.toMatchObject({
      code: "conflict",
    });
    await expect(
      assignConversation(ctx(ben), { conversationId: c.id, agentId: ben.id }),
    ).rejects.toMatchObject({ code: "conflict" });
    await claimConversation(ctx(ana), { conversationId: c.id });
    await expect(claimConversation(ctx(ben), { conversationId: c.id })).rejects.toMatchObject({
      code: "conflict",
    });
    expect(await agentOf(c.id)).toEqual({ state: "person", agent: ana.id });

    // Ana gives it to Ben; Ana, the owner, may take it back over, and the audit says from whom.
    await assignConversation(ctx(ana), { conversationId: c.id, agentId: ben.id });
    await claimConversation(ctx(ana), { conversationId: c.id });
    expect(await agentOf(c.id)).toEqual({ state: "person", agent: ana.id });
    const claims = await t.handle.platform
      .select({ details: auditLog.details })
      .from(auditLog)
      .where(and(eq(auditLog.action, "live.claimed"), eq(auditLog.target, c.id)));
    expect(claims.map((r) => r.details)).toContainEqual({ from: "person", takenFrom: ben.id });
  });

  it("a reply claims by the same rule as Take over: an owner's takes a teammate's visitor, an admin's does not", async () => {
    await recordPresence(ctx(ben), {});
    const c = await conversation();
    await ask(c);
    expect(await agentOf(c.id)).toEqual({ state: "waiting", agent: ben.id });
    // Ben, an admin, cannot reply to (and so claim) a visitor given to Ana.
    const other = await conversation();
    await ask(other);
    await recordPresence(ctx(ana), {});
    await assignConversation(ctx(ana), { conversationId: other.id, agentId: ana.id });
    await expect(sendAgentReply(ctx(ben), { conversationId: other.id, text: "Hello" })).rejects.toMatchObject(
      { code: "conflict" },
    );
    await sendAgentReply(ctx(ana), { conversationId: c.id, text: "Hello, Ana here" });
    expect(await agentOf(c.id)).toEqual({ state: "person", agent: ana.id });
    const claims = await t.handle.platform
      .select({ details: auditLog.details })
      .from(auditLog)
      .where(and(eq(auditLog.action, "live.claimed"), eq(auditLog.target, c.id)));
    expect(claims.map((r) => r.details)).toEqual([{ from: "waiting", takenFrom: ben.id }]);
    // Back with the bot, a reply refuses: taking over is a step of its own.
    await handBackConversation(ctx(ana), { conversationId: c.id });
    await expect(
      sendAgentReply(ctx(ana), { conversationId: c.id, text: "Still there?" }),
    ).rejects.toMatchObject({ code: "conflict" });
  });
});
