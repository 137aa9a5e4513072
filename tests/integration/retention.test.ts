import { eq, sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb } from "@/lib/db/client";
import { createTenant } from "@/lib/db/queries/tenants";
import { auditLog, conversations, messages, tenants, toolRuns } from "@/lib/db/schema";
import { PURGE_LOCK, purgeExpiredConversations } from "@/lib/retention";
import { freshDb, type TestDb } from "../support/db";
import { addConversation } from "./insights-fixtures";

const NOW = new Date("2025-06-30T12:00:00Z");
const daysAgo = (n: number, extraMs = 0) => new Date(NOW.getTime() - n * 86_400_000 + extraMs).toISOString();

let t: TestDb;
let a: { id: string };
let b: { id: string };
const kept: string[] = [];
const gone: string[] = [];

const conv = (tenantId: string, lastActivity: string) =>
  addConversation(t.handle, tenantId, {
    startedAt: lastActivity,
    messages: [
      { role: "user", at: lastActivity },
      { role: "assistant", at: lastActivity, runs: [{ packId: "get_menu" }] },
    ],
  });

async function remaining(tenantId: string) {
  const rows = await t.handle.platform
    .select({ id: conversations.id })
    .from(conversations)
    .where(eq(conversations.tenantId, tenantId));
  return rows.map((r) => r.id).sort();
}

beforeAll(async () => {
  t = await freshDb();
  a = await createTenant(t.handle.platform, { slug: "keep-30", name: "A" });
  b = await createTenant(t.handle.platform, { slug: "keep-365", name: "B" });
  await t.handle.platform.update(tenants).set({ retentionDays: 30 }).where(eq(tenants.id, a.id));
  await t.handle.platform.update(tenants).set({ retentionDays: 365 }).where(eq(tenants.id, b.id));
  // A (30 days): five conversations past the limit, one a second past it, and three inside it.
  for (const d of [31, 40, 60, 200, 1000]) gone.push(await conv(a.id, daysAgo(d)));
  gone.push(await conv(a.id, daysAgo(30, -1000)));
  for (const d of [0, 10, 29]) kept.push(await conv(a.id, daysAgo(d)));
  kept.push(await conv(a.id, daysAgo(30, 1000)));
  // B (365 days): 40 days old is kept here, though it would be gone at A; 400 days is gone.
  kept.push(await conv(b.id, daysAgo(40)));
  gone.push(await conv(b.id, daysAgo(400)));
  // Audit entries from long ago, for both tenants: a purge never touches them.
  await t.handle.platform.insert(auditLog).values([
    { tenantId: a.id, action: "pack.updated", createdAt: new Date(daysAgo(500)) },
    { tenantId: b.id, action: "pack.updated", createdAt: new Date(daysAgo(500)) },
  ]);
});

afterAll(() => t?.close());

describe("retention purge", () => {
  it("a run already in progress in this process makes a second one skip", async () => {
    // Both start in the same tick; the first takes the lock before the second looks at it.
    const [first, second] = await Promise.all([
      purgeExpiredConversations(t.handle, { now: new Date("2000-01-01T00:00:00Z") }),
      purgeExpiredConversations(t.handle, { now: new Date("2000-01-01T00:00:00Z") }),
    ]);
    expect(first.skipped).toBe(false);
    expect(second.skipped).toBe(true);
  });

  it.runIf(!!process.env.DATABASE_URL)("skips while another instance holds the advisory lock", async () => {
    const other = new pg.Client({ connectionString: t.url! });
    await other.connect();
    try {
      await other.query("select pg_advisory_lock($1)", [PURGE_LOCK]);
      const blocked = await purgeExpiredConversations(t.handle, { now: NOW });
      expect(blocked).toEqual({ skipped: true, deleted: 0, batches: 0, tenants: [] });
      expect(await remaining(a.id)).toHaveLength(10);
      await other.query("select pg_advisory_unlock($1)", [PURGE_LOCK]);
    } finally {
      await other.end();
    }
  });

  it("deletes exactly the conversations past each tenant's own retention, in batches", async () => {
    const result = await purgeExpiredConversations(t.handle, { now: NOW, batchSize: 2 });
    expect(result.skipped).toBe(false);
    expect(result.deleted).toBe(7);
    expect(result.tenants.sort((x, y) => x.deleted - y.deleted)).toEqual([
      { tenantId: b.id, deleted: 1 },
      { tenantId: a.id, deleted: 6 },
    ]);
    // A: 6 rows at 2 per batch is 3 full batches and one empty one that ends the loop; B: one short batch.
    expect(result.batches).toBe(5);

    const left = [...(await remaining(a.id)), ...(await remaining(b.id))].sort();
    expect(left).toEqual([...kept].sort());
    // Messages and tool runs went with their conversations, and only with them.
    const orphanMessages = await t.handle.platform
      .select({ n: sql<number>`count(*)::int` })
      .from(messages)
      .where(sql`${messages.conversationId} in ${gone}`);
    expect(orphanMessages[0]?.n).toBe(0);
    const runsLeft = await t.handle.platform.select({ n: sql<number>`count(*)::int` }).from(toolRuns);
    expect(runsLeft[0]?.n).toBe(kept.length);
  });

  it("keeps the audit log and adds one summary entry per tenant", async () => {
    const entries = await t.handle.platform
      .select({ tenantId: auditLog.tenantId, action: auditLog.action, details: auditLog.details })
      .from(auditLog)
      .orderBy(auditLog.action);
    expect(entries.filter((e) => e.action === "pack.updated")).toHaveLength(2);
    const purged = entries.filter((e) => e.action === "retention.purged");
    expect(purged).toHaveLength(2);
    expect(purged.find((e) => e.tenantId === a.id)?.details).toEqual({ conversations: 6, retentionDays: 30 });
    expect(purged.find((e) => e.tenantId === b.id)?.details).toEqual({
      conversations: 1,
      retentionDays: 365,
    });
  });

  it("a second run finds nothing to do and writes nothing", async () => {
    const again = await purgeExpiredConversations(t.handle, { now: NOW });
    expect(again).toEqual({ skipped: false, deleted: 0, batches: 0, tenants: [] });
    const purged = await t.handle.platform
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, "retention.purged"));
    expect(purged).toHaveLength(2);
  });

  it("a shorter retention takes effect on the next run", async () => {
    await t.handle.platform.update(tenants).set({ retentionDays: 20 }).where(eq(tenants.id, a.id));
    const result = await purgeExpiredConversations(t.handle, { now: NOW });
    // A's conversations of 29 days and 30 days less a second are now past the limit; B is untouched.
    expect(result.tenants).toEqual([{ tenantId: a.id, deleted: 2 }]);
    expect(await remaining(a.id)).toHaveLength(2);
    expect(await remaining(b.id)).toHaveLength(1);
  });
});

describe("retention purge on a pool of one connection", () => {
  it.runIf(!!process.env.DATABASE_URL)(
    "finishes (the lock is taken inside each batch's transaction)",
    async () => {
      const c = await createTenant(t.handle.platform, { slug: "keep-1", name: "C" });
      await t.handle.platform.update(tenants).set({ retentionDays: 1 }).where(eq(tenants.id, c.id));
      const old = await conv(c.id, daysAgo(2));
      const single = await createDb({ url: t.url!, poolMax: 1 });
      try {
        const result = await purgeExpiredConversations(single, { now: NOW });
        expect(result.tenants).toEqual([{ tenantId: c.id, deleted: 1 }]);
        expect(await remaining(c.id)).not.toContain(old);
      } finally {
        await single.close();
      }
    },
  );
});
