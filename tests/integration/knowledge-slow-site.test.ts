import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "@/lib/db/client";
import { createTenant } from "@/lib/db/queries/tenants";
import { startSync } from "@/lib/knowledge/sync";
import { freshDb, type TestDb } from "../support/db";
import {
  type FixtureRoute,
  type FixtureSite,
  hang,
  startFixtureSite,
  trickle,
} from "../support/fixture-site";
import { addSitemapSource, type KnowledgeInstance, startKnowledgeInstance } from "../support/knowledge";

// A site that trickles its body or never answers (issue 44, finding 8): each try ends at the request's time
// limit whatever the body does, a page that timed out is not tried again in the run, a host that keeps timing
// out costs no further requests in the run, and a silent robots.txt ends the run after one try. The request
// counts show it; nothing here measures time.

const robots = () => ({ body: "User-agent: *\nAllow: /\n", headers: { "content-type": "text/plain" } });
const page = () => ({
  body: "<!doctype html><html lang=en><head><title>Hours</title></head><body><main><h1>Hours</h1><p>Open every day from eight in the morning until six in the evening.</p></main></body></html>",
  headers: { "content-type": "text/html" },
});

async function siteWith(paths: string[], routes: Record<string, FixtureRoute>): Promise<FixtureSite> {
  const site: FixtureSite = await startFixtureSite({
    routes: {
      "/robots.txt": robots,
      "/sitemap.xml": () => ({
        body: `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths
          .map((p) => `<url><loc>${site.origin}${p}</loc></url>`)
          .join("")}</urlset>`,
        headers: { "content-type": "application/xml" },
      }),
      ...routes,
    },
  });
  return site;
}

let t: TestDb;
let tenants = 0;
const running: KnowledgeInstance[] = [];
const sites: FixtureSite[] = [];

beforeAll(async () => {
  t = await freshDb();
}, 60_000);
afterEach(async () => {
  for (const k of running.splice(0)) await k.stop();
});
afterAll(async () => {
  for (const s of sites) await s.close();
  await t?.close();
});

async function sync(site: FixtureSite) {
  sites.push(site);
  const k = await startKnowledgeInstance(t.handle, site, { timeoutMs: 1_000 });
  running.push(k);
  tenants += 1;
  const tenantId = (await createTenant(t.handle.platform, { slug: `kn-slow-${tenants}`, name: "Slow" })).id;
  const sourceId = await addSitemapSource(t.handle, tenantId, `${site.origin}/sitemap.xml`, {
    pageCap: 20,
    schedule: "off",
  });
  await startSync(t.handle, k.queue, { tenantId, sourceId, actor: null, reason: "manual" });
  const state = async () =>
    (
      await rowsOf<{ sync_state: string; last_sync_error: string | null }>(
        t.handle.platform,
        sql`select sync_state, last_sync_error from knowledge_sources where id = ${sourceId}`,
      )
    )[0]!;
  await expect.poll(async () => (await state()).sync_state, { timeout: 60_000, interval: 250 }).toBe("idle");
  const pages = await rowsOf<{ url: string; status: string; reason: string | null }>(
    t.handle.platform,
    sql`select url, status, reason from knowledge_pages where source_id = ${sourceId} order by url`,
  );
  const byPath = Object.fromEntries(pages.map((p) => [new URL(p.url).pathname, `${p.status}: ${p.reason}`]));
  return { byPath, error: (await state()).last_sync_error };
}

const asked = (site: FixtureSite, path: string) => site.requests.filter((r) => r.path === path).length;

describe("a slow site", () => {
  it("ends a trickling page at its time limit, once, and indexes the rest", async () => {
    const site = await siteWith(["/trickle", "/fine"], { "/trickle": trickle(100), "/fine": page });
    const { byPath } = await sync(site);
    expect(byPath).toEqual({
      "/fine": "indexed: null",
      "/trickle": "failed: The site did not answer in time",
    });
    expect(asked(site, "/trickle")).toBe(1);
  });

  it("stops asking a host that keeps not answering", async () => {
    const paths = Array.from({ length: 8 }, (_, i) => `/silent-${i}`);
    const site = await siteWith(paths, Object.fromEntries(paths.map((p) => [p, hang()])));
    const { byPath } = await sync(site);
    const reasons = Object.values(byPath);
    expect(reasons).toHaveLength(8);
    for (const r of reasons)
      expect([
        "failed: The site did not answer in time",
        "failed: The site stopped answering during this sync",
      ]).toContain(r);
    expect(reasons).toContain("failed: The site stopped answering during this sync");
    expect(paths.reduce((n, p) => n + asked(site, p), 0)).toBeLessThanOrEqual(4);
  });

  it("ends the run after one try when robots.txt never answers", async () => {
    const site = await siteWith(["/fine"], { "/robots.txt": hang(), "/fine": page });
    const { byPath, error } = await sync(site);
    expect(byPath).toEqual({});
    expect(error).toContain("the site did not answer in time");
    expect(asked(site, "/robots.txt")).toBe(1);
  });
});
