import { readFileSync } from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "@/lib/db/client";
import { createTenant } from "@/lib/db/queries/tenants";
import { freshDb, type TestDb } from "../support/db";
import { type FixtureRoute, type FixtureSite, startFixtureSite } from "../support/fixture-site";
import { addSitemapSource, startKnowledgeInstance, syncToIdle } from "../support/knowledge";
import { logingovDir, sitePages } from "../support/knowledge-sites";

// The Login.gov copy (../shared/knowledge-sites, see its README) has what real sites have: a page every footer
// links to that its sitemap forgot (the messaging terms), and a folder its sitemap lists but robots.txt
// disallows (/preview/). A sitemap source indexes the first through the pages' links and never asks for the
// second. Skipped, with a warning, in a clone without ../shared.

const dir = logingovDir();
const ORIGIN_IN_FILES = "https://localhost:8441";
const FORGOTTEN = "/policy/messaging-terms-and-conditions.html";

let site: FixtureSite;
let t: TestDb;

beforeAll(async () => {
  if (!dir) return;
  const text = (file: string, type: string) => () => ({
    body: readFileSync(path.join(dir, file), "utf8").replaceAll(ORIGIN_IN_FILES, site.origin),
    headers: { "content-type": type },
  });
  const routes: Record<string, FixtureRoute> = {
    "/sitemap.xml": text("sitemap.xml", "application/xml"),
    "/robots.txt": text("robots.txt", "text/plain"),
  };
  for (const p of sitePages(dir)) routes[p.path] = text(p.path.slice(1), "text/html; charset=utf-8");
  site = await startFixtureSite({ routes });
  t = await freshDb();
}, 60_000);
afterAll(async () => {
  await site?.close();
  await t?.close();
});

describe.skipIf(!dir)("a sitemap source on the Login.gov copy", () => {
  it("indexes the page linked from the pages but missing from the sitemap, and nothing under /preview/", async () => {
    const sitemap = readFileSync(path.join(dir!, "sitemap.xml"), "utf8");
    expect(sitemap).not.toContain(FORGOTTEN);
    const tenantId = (await createTenant(t.handle.platform, { slug: "kn-logingov", name: "Login.gov" })).id;
    const sourceId = await addSitemapSource(t.handle, tenantId, `${site.origin}/sitemap.xml`, {
      pageCap: 200,
      schedule: "off",
    });
    const k = await startKnowledgeInstance(t.handle, site);
    try {
      await syncToIdle(t.handle, k.queue, tenantId, sourceId, 120_000);
    } finally {
      await k.stop();
    }
    const rows = await rowsOf<{ url: string; status: string; reason: string | null }>(
      t.handle.platform,
      sql`select url, status, reason from knowledge_pages where source_id = ${sourceId}`,
    );
    const state = Object.fromEntries(rows.map((r) => [new URL(r.url).pathname, r.status]));
    expect(state[FORGOTTEN]).toBe("indexed");
    const preview = rows.filter((r) => new URL(r.url).pathname.startsWith("/preview/"));
    expect(preview.length).toBeGreaterThan(0);
    for (const r of preview) expect(`${r.status}:${r.reason}`).toBe("skipped:robots");
    expect(site.requests.filter((r) => r.path.startsWith("/preview/"))).toEqual([]);
  }, 180_000);
});
