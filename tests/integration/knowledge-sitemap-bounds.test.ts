import { gzipSync } from "node:zlib";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "@/lib/db/client";
import { createTenant } from "@/lib/db/queries/tenants";
import { freshDb, type TestDb } from "../support/db";
import { startFixtureSite } from "../support/fixture-site";
import {
  addSitemapSource,
  type KnowledgeInstance,
  startKnowledgeInstance,
  syncToIdle,
} from "../support/knowledge";

// Sitemaps as real sites write them and as an attacker would (issue 44, finding 1 and the entity part of 3): a
// <loc> with `&amp;` in its query string is crawled at the address it means; a 19 MB sitemap of 95,000 pages, an
// index naming twelve of them, and an index of 19 MB sitemaps of empty elements are each read only up to the
// sync's bounds (entries: page cap × 2 + 100; bytes: 60 MB across the index), and the Knowledge page says so.

const xml = { "content-type": "application/xml" };
const urlset = (inner: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${inner}</urlset>`;
const index = (locs: string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs
    .map((l) => `<sitemap><loc>${l}</loc></sitemap>`)
    .join("")}</sitemapindex>`;

let huge: Buffer;
const emptyBomb = gzipSync(urlset("<url></url><url/>".repeat(1_150_000)));
const page = (title: string) => ({
  body: `<!doctype html><html lang="en"><head><title>${title}</title></head><body><main><h1>${title}</h1><p>Opening hours of the Kyoto café and its coffee menu for ${title}.</p></main></body></html>`,
  headers: { "content-type": "text/html; charset=utf-8" },
});

const site = await startFixtureSite({
  routes: {
    "/robots.txt": () => ({ body: "User-agent: *\nAllow: /\n", headers: { "content-type": "text/plain" } }),
    "/entities.xml": () => ({
      body: urlset(
        `<url><loc>${origin()}/search?q=beans&amp;page=2</loc></url><url><loc><![CDATA[${origin()}/menu?day=mon&size=l]]></loc></url>`,
      ),
      headers: xml,
    }),
    "/search": (req) => page(`search ${req.query.get("q")} ${req.query.get("page")}`),
    "/menu": (req) => page(`menu ${req.query.get("day")} ${req.query.get("size")}`),
    "/huge.xml": () => ({ body: huge, headers: xml }),
    "/huge-index.xml": () => ({
      body: index(Array.from({ length: 12 }, (_, i) => `${origin()}/huge.xml?n=${i}`)),
      headers: xml,
    }),
    "/empty.xml.gz": () => ({ body: emptyBomb, headers: { "content-type": "application/gzip" } }),
    "/empty-index.xml": () => ({
      body: index(Array.from({ length: 12 }, (_, i) => `${origin()}/empty.xml.gz?n=${i}`)),
      headers: xml,
    }),
  },
});
function origin() {
  return site.origin;
}
huge = Buffer.from(
  urlset(
    Array.from(
      { length: 95_000 },
      (_, i) =>
        `<url><loc>${origin()}/products/category-${i % 40}/item-${i}?colour=blue&amp;size=medium&amp;ref=sitemap</loc><lastmod>2026-11-30</lastmod><changefreq>weekly</changefreq><priority>0.5</priority></url>`,
    ).join("\n"),
  ),
);

let t: TestDb;
let tenants = 0;
const running: KnowledgeInstance[] = [];

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

async function syncOf(path: string, pageCap: number) {
  const k = await startKnowledgeInstance(t.handle, site);
  running.push(k);
  // A business has one website source: each sync here is another business's.
  tenants += 1;
  const tenantId = (await createTenant(t.handle.platform, { slug: `kn-sitemap-${tenants}`, name: "Michi" }))
    .id;
  const sourceId = await addSitemapSource(t.handle, tenantId, `${origin()}${path}`, {
    pageCap,
    schedule: "off",
  });
  await syncToIdle(t.handle, k.queue, tenantId, sourceId, 60_000);
  const [source] = await rowsOf<{ last_sync_error: string | null; run_queued: number; run_over_cap: number }>(
    t.handle.platform,
    sql`select last_sync_error, run_queued, run_over_cap from knowledge_sources where id = ${sourceId}`,
  );
  const pages = await rowsOf<{ url: string; status: string }>(
    t.handle.platform,
    sql`select url, status from knowledge_pages where source_id = ${sourceId} order by url`,
  );
  return { source: source!, pages };
}

describe("sitemap bounds", () => {
  it("crawls a <loc> with &amp; in its query string at the address it means", async () => {
    const { pages } = await syncOf("/entities.xml", 10);
    expect(pages.map((p) => [p.url, p.status])).toEqual([
      [`${origin()}/menu?day=mon&size=l`, "indexed"],
      [`${origin()}/search?page=2&q=beans`, "indexed"],
    ]);
    const asked = site.requests.filter((r) => r.path === "/search").map((r) => r.query.get("page"));
    expect(asked).toEqual(["2"]);
  });

  it("reads a 19 MB sitemap of 95,000 pages, and an index of twelve, only up to the sync's entry cap", async () => {
    expect(huge.byteLength).toBeGreaterThan(18 * 1024 * 1024);
    for (const path of ["/huge.xml", "/huge-index.xml"]) {
      const from = site.requests.length;
      const { source, pages } = await syncOf(path, 3);
      expect(source.last_sync_error).toBe(
        "The sitemap lists more pages than one sync reads (106), so the rest were left out.",
      );
      expect(pages).toHaveLength(3);
      expect(source.run_over_cap).toBe(103);
      // The index's other eleven sitemaps were never fetched: the first one filled the sync.
      expect(site.requests.slice(from).filter((r) => r.path === "/huge.xml")).toHaveLength(1);
    }
  });

  it("stops reading an index of 19 MB empty-element sitemaps at 60 MB, saying so", async () => {
    const from = site.requests.length;
    const { source, pages } = await syncOf("/empty-index.xml", 3);
    expect(source.last_sync_error).toBe(
      "The sitemaps hold more than one sync reads (60 MB in all), so 9 of them were left out.",
    );
    expect(pages).toEqual([]);
    expect(site.requests.slice(from).filter((r) => r.path === "/empty.xml.gz").length).toBeLessThanOrEqual(4);
  });
});
