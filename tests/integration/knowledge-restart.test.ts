import { createRequire } from "node:module";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "@/lib/db/client";
import { createTenant } from "@/lib/db/queries/tenants";
import { startSync } from "@/lib/knowledge/sync";
import { QUEUE_SCHEMA } from "@/lib/queue";
import { freshDb, type TestDb } from "../support/db";
import { type FixtureReply, startFixtureSite } from "../support/fixture-site";
import { addSitemapSource, type KnowledgeInstance, startKnowledgeInstance } from "../support/knowledge";

// One sync run carried by more than one instance: stopped half-way and finished by the next one, killed
// half-way with its jobs left active until they expire, and shared by two instances working at once. In every
// case the run ends once, with every page fetched once and indexed once.

// pg-boss's own statement for jobs whose run outlived expire_in; its maintenance runs it every 60 s.
const plans = createRequire(import.meta.url)("pg-boss/src/plans") as {
  failJobsByTimeout(schema: string): string;
};

const PAGES = Array.from({ length: 12 }, (_, i) => `/p${i + 1}`);
const page =
  (path: string, head = ""): (() => FixtureReply) =>
  () => ({
    body: `<!doctype html><html lang="en"><head><title>Page ${path}</title>${head}</head><body><main>
      <h1>About ${path}</h1><p>Everything our café visitors ask about ${path}, written out in full sentences.</p>
      </main></body></html>`,
    headers: { "content-type": "text/html; charset=utf-8" },
  });

const site = await startFixtureSite({
  routes: {
    "/robots.txt": () => ({
      body: "User-agent: *\nDisallow: /drafts/\n",
      headers: { "content-type": "text/plain" },
    }),
    "/sitemap.xml": () => ({
      body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${[
        ...PAGES,
        "/p3-print",
        "/drafts/menu",
      ]
        .map((u) => `<url><loc>${site.origin}${u}</loc></url>`)
        .join("")}</urlset>`,
      headers: { "content-type": "application/xml" },
    }),
    ...Object.fromEntries(PAGES.map((p) => [p, page(p)])),
    // A printable copy naming /p3 as its canonical page: a second way to reach /p3 in the same run.
    "/p3-print": page("/p3", `<link rel="canonical" href="/p3">`),
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

const isPage = (url: string) => /^\/p\d+/.test(new URL(url).pathname);

async function instance(hold?: (url: string) => boolean) {
  const k = await startKnowledgeInstance(t.handle, site, hold ? { hold } : {});
  running.push(k);
  return k;
}

async function source() {
  n += 1;
  const tenantId = (await createTenant(t.handle.platform, { slug: `kn-restart-${n}`, name: "Michi" })).id;
  const sourceId = await addSitemapSource(t.handle, tenantId, `${site.origin}/sitemap.xml`, {
    pageCap: 500,
    schedule: "off",
  });
  return { tenantId, sourceId };
}

type Run = { sync_state: string; run_queued: number; run_done: number; run_id: string };
async function run(sourceId: string): Promise<Run> {
  const [row] = await rowsOf<Run>(
    t.handle.platform,
    sql`select sync_state, run_queued, run_done, run_id from knowledge_sources where id = ${sourceId}`,
  );
  return row!;
}

async function idle(sourceId: string) {
  await expect
    .poll(async () => (await run(sourceId)).sync_state, { timeout: 60_000, interval: 250 })
    .toBe("idle");
}

/** Requests per page path since `from`. */
function fetchedSince(from: number): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of site.requests.slice(from))
    if (/^\/p\d+/.test(r.path)) counts[r.path] = (counts[r.path] ?? 0) + 1;
  return counts;
}
const once = (paths: string[]) => Object.fromEntries(paths.map((p) => [p, 1]));

/** Every page of the run done once: its state, and exactly one set of passages per indexed page. */
async function indexedOnce(sourceId: string, runId: string) {
  const rows = await rowsOf<{ path: string; status: string; done: boolean; chunks: number; texts: number }>(
    t.handle.platform,
    sql`select p.url as path, p.status, p.done_run = ${runId} as done,
          (select count(*)::int from knowledge_chunks c where c.page_id = p.id) as chunks,
          (select count(distinct c.text)::int from knowledge_chunks c where c.page_id = p.id) as texts
        from knowledge_pages p where p.source_id = ${sourceId}`,
  );
  const byPath = Object.fromEntries(rows.map((r) => [new URL(r.path).pathname, r]));
  for (const p of PAGES) {
    expect(byPath[p]?.status, p).toBe("indexed");
    expect(byPath[p]?.chunks, p).toBeGreaterThan(0);
    expect(byPath[p]?.chunks, p).toBe(byPath[p]?.texts);
  }
  expect(byPath["/p3-print"]?.status).toBe("skipped");
  expect(byPath["/drafts/menu"]?.status).toBe("skipped");
  expect(rows.every((r) => r.done)).toBe(true);
  const r = await run(sourceId);
  expect(r.run_id).toBe(runId);
  expect(r.run_done).toBe(r.run_queued);
  expect(r.run_queued).toBe(rows.length);
}

async function pageJobs(...states: string[]): Promise<number> {
  const [row] = await rowsOf<{ n: number }>(
    t.handle.platform,
    sql`select count(*)::int as n from ${sql.raw(QUEUE_SCHEMA)}.job
        where name = 'knowledge.page' and state::text in ${states}`,
  );
  return row!.n;
}

describe("a sync run across instances", () => {
  it("stopped half-way, it is finished by the next instance, every page fetched once", async () => {
    const { tenantId, sourceId } = await source();
    const a = await instance(isPage);
    const from = site.requests.length;
    const runId = await startSync(t.handle, a.queue, { tenantId, sourceId, actor: null, reason: "manual" });
    // A has a batch of page jobs in hand, stuck before their fetch: the rest of the run waits in the queue.
    await expect.poll(() => a.held(), { timeout: 30_000, interval: 50 }).toBeGreaterThan(0);
    const stopping = a.stop();
    a.release();
    await stopping;
    running.splice(running.indexOf(a), 1);
    const half = await run(sourceId);
    expect(half.sync_state).not.toBe("idle");
    expect(half.run_done).toBeGreaterThan(0);
    expect(half.run_done).toBeLessThan(half.run_queued);
    const byA = Object.keys(fetchedSince(from));
    expect(byA.length).toBeGreaterThan(0);
    expect(byA.length).toBeLessThan(PAGES.length + 1);

    await instance();
    await idle(sourceId);
    expect(fetchedSince(from)).toEqual(once([...PAGES, "/p3-print"]));
    await indexedOnce(sourceId, runId);
  });

  it("killed half-way with its jobs left active, the run finishes once after they expire", async () => {
    const { tenantId, sourceId } = await source();
    // A takes its first batch of page jobs; the second fetch hangs, the others are fetched and stored.
    let fetches = 0;
    const a = await instance((url) => isPage(url) && ++fetches === 2);
    const from = site.requests.length;
    const runId = await startSync(t.handle, a.queue, { tenantId, sourceId, actor: null, reason: "manual" });
    await expect.poll(() => a.held(), { timeout: 30_000, interval: 50 }).toBe(1);
    await expect
      .poll(async () => (await run(sourceId)).run_done, { timeout: 30_000, interval: 50 })
      .toBeGreaterThan(0);
    a.crash();
    const left = await pageJobs("active");
    expect(left).toBeGreaterThan(0);
    const half = await run(sourceId);
    expect(half.run_done).toBeLessThan(half.run_queued);

    // B starts; A's jobs stay active, so B does the rest of the run and cannot end it.
    const b = await instance();
    await expect
      .poll(async () => [await pageJobs("created", "retry"), await pageJobs("active")], {
        timeout: 60_000,
        interval: 250,
      })
      .toEqual([0, left]);
    const waiting = await run(sourceId);
    expect(waiting.sync_state).not.toBe("idle");
    expect(waiting.run_done).toBeLessThan(waiting.run_queued);

    // Time passes beyond expire_in and maintenance fails A's jobs back to the queue, as pg-boss does itself.
    // B gets them all again: the pages A had stored must not be fetched or counted again.
    await t.handle.platform.execute(
      sql`update ${sql.raw(QUEUE_SCHEMA)}.job set started_on = now() - expire_in - interval '1 second'
          where name = 'knowledge.page' and state = 'active'`,
    );
    await t.handle.platform.execute(sql.raw(plans.failJobsByTimeout(QUEUE_SCHEMA)));
    void b;
    await idle(sourceId);
    expect(fetchedSince(from)).toEqual(once([...PAGES, "/p3-print"]));
    await indexedOnce(sourceId, runId);
  });

  it("two instances working one run at once fetch and index each page once", async () => {
    const { tenantId, sourceId } = await source();
    const a = await instance(isPage);
    const b = await instance(isPage);
    const from = site.requests.length;
    const runId = await startSync(t.handle, a.queue, { tenantId, sourceId, actor: null, reason: "manual" });
    // Both hold page jobs of the run before either fetches: the run is really shared.
    await expect.poll(() => a.held() > 0 && b.held() > 0, { timeout: 30_000, interval: 50 }).toBe(true);
    a.release();
    b.release();
    await idle(sourceId);
    expect(fetchedSince(from)).toEqual(once([...PAGES, "/p3-print"]));
    await indexedOnce(sourceId, runId);
  });
});
