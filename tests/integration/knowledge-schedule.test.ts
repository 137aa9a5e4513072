import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "@/lib/db/client";
import { listDueSources, saveWebsiteSource } from "@/lib/db/queries/knowledge-sources";
import { savePackConfig } from "@/lib/db/queries/packs";
import { createTenant } from "@/lib/db/queries/tenants";
import { startDueSync, startDueSyncs } from "@/lib/knowledge/worker";
import type { JobQueue } from "@/lib/queue";
import { freshDb, type TestDb } from "../support/db";
import { startFixtureSite } from "../support/fixture-site";
import { type KnowledgeInstance, startKnowledgeInstance } from "../support/knowledge";

// The schedule's sweep (daily, weekly) as two instances run it every minute: a due source gets exactly one
// run, its next sync moves on by its schedule, a run that fails to start leaves it due, and businesses whose
// knowledge pack is off, or that are suspended, are left alone.

const site = await startFixtureSite({
  routes: {
    "/robots.txt": () => ({ body: "User-agent: *\nAllow: /\n", headers: { "content-type": "text/plain" } }),
    "/sitemap.xml": () => ({
      body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${site.origin}/hours</loc></url></urlset>`,
      headers: { "content-type": "application/xml" },
    }),
    "/hours": () => ({
      body: `<!doctype html><html lang="en"><head><title>Hours</title></head><body><main><h1>Opening hours</h1>
        <p>The café opens at eight every morning and closes at six in the evening.</p></main></body></html>`,
      headers: { "content-type": "text/html; charset=utf-8" },
    }),
  },
});

let t: TestDb;
const running: KnowledgeInstance[] = [];
let n = 0;

beforeAll(async () => {
  t = await freshDb();
}, 60_000);
afterEach(async () => {
  for (const k of running.splice(0)) await k.stop();
});
afterAll(async () => {
  await site.close();
  await t?.close();
});

async function instance() {
  const k = await startKnowledgeInstance(t.handle, site);
  running.push(k);
  return k;
}

/** A business with a website source on `schedule`, due a minute ago unless told otherwise. */
async function business(
  opts: { schedule?: "daily" | "weekly" | "off"; packOn?: boolean | null; dueInSeconds?: number } = {},
) {
  n += 1;
  const tenantId = (await createTenant(t.handle.platform, { slug: `kn-sched-${n}`, name: `Café ${n}` })).id;
  const sourceId = await t.handle.forTenant(tenantId, async (tx) => {
    if (opts.packOn !== null)
      await savePackConfig(tx, tenantId, "search_knowledge", { enabled: opts.packOn ?? true }, null);
    const src = await saveWebsiteSource(tx, tenantId, {
      startUrl: null,
      sitemapUrl: `${site.origin}/sitemap.xml`,
      includePatterns: [],
      excludePatterns: [],
      pageCap: 10,
      schedule: opts.schedule ?? "daily",
      nextSyncAt: null,
    });
    return src.id;
  });
  await t.handle.platform.execute(
    sql`update knowledge_sources set next_sync_at = now() + make_interval(secs => ${opts.dueInSeconds ?? -60})
        where id = ${sourceId}`,
  );
  return { tenantId, sourceId };
}

type Row = {
  sync_state: string;
  run_id: string | null;
  next_sync_at: Date | null;
  last_sync_at: Date | null;
  /** Seconds from the database's now() to next_sync_at. */
  next_in: number | null;
  /** Seconds from last_sync_at to next_sync_at. */
  after_last: number | null;
};

async function source(id: string): Promise<Row> {
  const [row] = await rowsOf<Row>(
    t.handle.platform,
    sql`select sync_state, run_id, next_sync_at, last_sync_at,
          extract(epoch from next_sync_at - now())::float8 as next_in,
          extract(epoch from next_sync_at - last_sync_at)::float8 as after_last
        from knowledge_sources where id = ${id}`,
  );
  return row!;
}

async function scheduledStarts(tenantId: string): Promise<number> {
  const [row] = await rowsOf<{ n: number }>(
    t.handle.platform,
    sql`select count(*)::int as n from audit_log
        where tenant_id = ${tenantId} and action = 'knowledge.sync_started' and details->>'reason' = 'schedule'`,
  );
  return row!.n;
}

const DAY = 86_400;

describe("the knowledge schedule", () => {
  it("starts a due source once when two instances sweep together, and moves its next sync on by a day", async () => {
    const a = await instance();
    const b = await instance();
    const { tenantId, sourceId } = await business({ schedule: "daily" });
    const from = site.requests.length;

    // Both instances read the due list before either takes anything: each sees the source.
    const seenByA = (await listDueSources(t.handle.platform)).find((s) => s.id === sourceId);
    const seenByB = (await listDueSources(t.handle.platform)).find((s) => s.id === sourceId);
    expect(seenByA && seenByB).toBeTruthy();
    const [tookA, tookB] = await Promise.all([
      startDueSync(t.handle, a.queue, seenByA!),
      startDueSync(t.handle, b.queue, seenByB!),
    ]);
    expect([tookA, tookB].filter(Boolean)).toHaveLength(1);
    // A stale list, read before the take committed, starts nothing either; nor do two later sweeps.
    expect(await startDueSync(t.handle, b.queue, seenByB!)).toBe(false);
    expect(await Promise.all([startDueSyncs(t.handle, a.queue), startDueSyncs(t.handle, b.queue)])).toEqual([
      0, 0,
    ]);
    expect(await scheduledStarts(tenantId)).toBe(1);

    const taken = await source(sourceId);
    expect(taken.sync_state).not.toBe("idle");
    expect(taken.next_in).toBeGreaterThan(DAY - 120);
    expect(taken.next_in).toBeLessThanOrEqual(DAY);

    await expect
      .poll(async () => (await source(sourceId)).sync_state, { timeout: 60_000, interval: 250 })
      .toBe("idle");
    const done = await source(sourceId);
    expect(done.run_id).toBe(taken.run_id);
    // Set from the end of the run (the clocks of the app and the database may differ by a little).
    expect(Math.abs(done.after_last! - DAY)).toBeLessThan(60);
    const fetched = site.requests.slice(from).map((r) => r.path);
    expect(fetched.filter((p) => p === "/sitemap.xml")).toHaveLength(1);
    expect(fetched.filter((p) => p === "/hours")).toHaveLength(1);
  });

  it("moves a weekly source's next sync on by seven days", async () => {
    const k = await instance();
    const { sourceId } = await business({ schedule: "weekly" });
    expect(await startDueSyncs(t.handle, k.queue)).toBe(1);
    const taken = await source(sourceId);
    expect(taken.next_in).toBeGreaterThan(7 * DAY - 120);
    expect(taken.next_in).toBeLessThanOrEqual(7 * DAY);
    await expect
      .poll(async () => (await source(sourceId)).sync_state, { timeout: 60_000, interval: 250 })
      .toBe("idle");
    expect(Math.abs((await source(sourceId)).after_last! - 7 * DAY)).toBeLessThan(60);
  });

  it("a run that fails to start leaves the source due, and the next sweep starts it", async () => {
    const k = await instance();
    const { tenantId, sourceId } = await business({ schedule: "daily" });
    const before = await source(sourceId);
    const broken: JobQueue = {
      ...k.queue,
      sendIn: async () => {
        throw new Error("the queue's connection dropped");
      },
    };
    expect(await startDueSyncs(t.handle, broken)).toBe(0);
    const after = await source(sourceId);
    expect(after.next_sync_at).toEqual(before.next_sync_at);
    expect(after.run_id).toBe(before.run_id);
    expect(after.sync_state).toBe("idle");
    expect(await scheduledStarts(tenantId)).toBe(0);

    expect(await startDueSyncs(t.handle, k.queue)).toBe(1);
    expect(await scheduledStarts(tenantId)).toBe(1);
    expect((await source(sourceId)).next_in).toBeGreaterThan(DAY - 120);
  });

  it("skips businesses whose knowledge pack is off or missing, suspended ones, and sources not yet due", async () => {
    const k = await instance();
    const off = await business({ packOn: false });
    const never = await business({ packOn: null });
    const suspended = await business();
    await t.handle.platform.execute(
      sql`update tenants set status = 'suspended' where id = ${suspended.tenantId}`,
    );
    const notYet = await business({ dueInSeconds: 3600 });
    const unscheduled = await business({ schedule: "off" });
    const skipped = [off, never, suspended, notYet, unscheduled];
    const before = await Promise.all(skipped.map((s) => source(s.sourceId)));

    expect(await startDueSyncs(t.handle, k.queue)).toBe(0);
    for (const [i, s] of skipped.entries()) {
      expect(await scheduledStarts(s.tenantId)).toBe(0);
      const row = await source(s.sourceId);
      expect(row.next_sync_at).toEqual(before[i]!.next_sync_at);
      expect(row.sync_state).toBe("idle");
    }

    // Switched back on, the business's overdue sync runs at the next sweep.
    await t.handle.forTenant(off.tenantId, (tx) =>
      savePackConfig(tx, off.tenantId, "search_knowledge", { enabled: true }, null),
    );
    expect(await startDueSyncs(t.handle, k.queue)).toBe(1);
    expect(await scheduledStarts(off.tenantId)).toBe(1);
  });

  it("leaves a source whose run is going to that run, but takes one whose run was abandoned a day ago", async () => {
    const k = await instance();
    const going = await business();
    const abandoned = await business();
    await t.handle.platform.execute(
      sql`update knowledge_sources set sync_state = 'syncing', run_id = gen_random_uuid(),
            run_started_at = now() - interval '10 minutes' where id = ${going.sourceId}`,
    );
    await t.handle.platform.execute(
      sql`update knowledge_sources set sync_state = 'syncing', run_id = gen_random_uuid(),
            run_started_at = now() - interval '25 hours' where id = ${abandoned.sourceId}`,
    );
    expect(await startDueSyncs(t.handle, k.queue)).toBe(1);
    expect(await scheduledStarts(going.tenantId)).toBe(0);
    expect(await scheduledStarts(abandoned.tenantId)).toBe(1);
  });
});
