import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "@/lib/db/client";
import { saveWebsiteSource } from "@/lib/db/queries/knowledge-sources";
import { createTenant } from "@/lib/db/queries/tenants";
import { startSync } from "@/lib/knowledge/sync";
import { freshDb, type TestDb } from "../support/db";
import {
  type FixtureReply,
  type FixtureRequest,
  redirectTo,
  startFixtureSite,
} from "../support/fixture-site";
import { type KnowledgeInstance, startKnowledgeInstance } from "../support/knowledge";

// A website without a sitemap, crawled from its start page by following links: breadth first, on the host the
// start page really answered from (the bare domain redirecting to www, as most sites do), under the page cap
// and the depth cap even when the site generates links without end, and with include/exclude patterns.

/** A page with its own sentence (so no two pages are twins) and the given links. */
function html(title: string, links: string[]): FixtureReply {
  const nav = links.map((l) => `<a href="${l}">${l}</a>`).join(" ");
  return {
    body: `<!doctype html><html lang="en"><head><title>${title}</title></head><body><nav>${nav}</nav>
      <main><h1>${title}</h1><p>This page is about ${title}, written for the visitors of the Michi café in Kyoto.</p></main></body></html>`,
    headers: { "content-type": "text/html; charset=utf-8" },
  };
}
const fixed = (title: string, links: string[]) => () => html(title, links);

// The "www" host: where every page really is.
const www = await startFixtureSite({
  routes: {
    "/robots.txt": { body: "" },
    "/": fixed("Home", ["/about", "/menu", "https://elsewhere.example/partner"]),
    "/about": fixed("About us", ["/about/team"]),
    "/menu": fixed("Menu", ["/menu/drinks"]),
    "/about/team": fixed("Our team", []),
    "/menu/drinks": fixed("Drinks", []),
    // An infinite binary tree of links: every page links to two new ones.
    "/tree": (req: FixtureRequest) => {
      const n = Number(req.query.get("n") ?? "1");
      return html(`Tree page ${n}`, [`/tree?n=${2 * n}`, `/tree?n=${2 * n + 1}`]);
    },
    // An endless calendar: each month links to the next one.
    "/calendar": (req: FixtureRequest) => {
      const m = Number(req.query.get("m") ?? "0");
      return html(`Calendar month ${m}`, [`/calendar?m=${m + 1}`]);
    },
    "/shop": fixed("Shop", [
      "/shop/tea",
      "/shopping-guide",
      "/shop/archive/2019",
      "/shop/archive-notes",
      "/about",
    ]),
    "/shop/tea": fixed("Tea", []),
    "/shopping-guide": fixed("Shopping guide", []),
    "/shop/archive/2019": fixed("Archive 2019", []),
    "/shop/archive-notes": fixed("Archive notes", []),
  },
});
// The bare domain: only a redirect to the www host, as example.com → www.example.com.
const apex = await startFixtureSite({
  routes: { "/robots.txt": { body: "" }, "/": redirectTo(`${www.origin}/`, 301) },
});

let t: TestDb;
const running: KnowledgeInstance[] = [];

beforeAll(async () => {
  t = await freshDb();
}, 60_000);
afterEach(async () => {
  for (const k of running.splice(0)) await k.stop();
});
afterAll(async () => {
  await www.close();
  await apex.close();
  await t?.close();
});

/** A business with a website source starting at `startUrl`, synced once; the paths requested from www. */
async function crawl(
  slug: string,
  startUrl: string,
  opts: { pageCap?: number; include?: string[]; exclude?: string[] } = {},
) {
  const tenantId = (await createTenant(t.handle.platform, { slug, name: slug })).id;
  const sourceId = await t.handle.forTenant(
    tenantId,
    async (tx) =>
      (
        await saveWebsiteSource(tx, tenantId, {
          startUrl,
          sitemapUrl: null,
          includePatterns: opts.include ?? [],
          excludePatterns: opts.exclude ?? [],
          pageCap: opts.pageCap ?? 500,
          schedule: "off",
          nextSyncAt: null,
        })
      ).id,
  );
  const k = await startKnowledgeInstance(t.handle, www, { alsoSites: [apex] });
  running.push(k);
  const from = www.requests.length;
  await startSync(t.handle, k.queue, { tenantId, sourceId, actor: null, reason: "manual" });
  const source = async () =>
    (
      await rowsOf<{ sync_state: string; run_over_cap: number; page_cap: number }>(
        t.handle.platform,
        sql`select sync_state, run_over_cap, page_cap from knowledge_sources where id = ${sourceId}`,
      )
    )[0]!;
  await expect.poll(async () => (await source()).sync_state, { timeout: 90_000, interval: 250 }).toBe("idle");
  const rows = await rowsOf<{ url: string; status: string; reason: string | null; depth: number }>(
    t.handle.platform,
    sql`select url, status, reason, depth from knowledge_pages where source_id = ${sourceId} order by depth, url`,
  );
  const requested = www.requests
    .slice(from)
    .filter((r) => r.path !== "/robots.txt")
    .map((r) => `${r.path}${r.query.size ? `?${r.query}` : ""}`);
  return { rows, requested, source: await source() };
}

const local = (url: string) => {
  const u = new URL(url);
  const host =
    u.host === new URL(www.origin).host ? "www" : u.host === new URL(apex.origin).host ? "apex" : u.host;
  return `${host}${u.pathname}${u.search}`;
};

describe("a crawl from the start page", () => {
  it("follows the links of the host the start page redirected to, breadth first, never off the site", async () => {
    const { rows, requested } = await crawl("kn-links", `${apex.origin}/`);
    expect(rows.map((r) => `${r.depth} ${local(r.url)} ${r.status}`)).toEqual([
      "0 apex/ indexed",
      "1 www/about indexed",
      "1 www/menu indexed",
      "2 www/about/team indexed",
      "2 www/menu/drinks indexed",
    ]);
    // Breadth first: both pages one link away are fetched before either page two links away.
    const at = (p: string) => requested.indexOf(p);
    expect(Math.max(at("/about"), at("/menu"))).toBeLessThan(Math.min(at("/about/team"), at("/menu/drinks")));
    expect(requested.filter((p) => p === "/")).toHaveLength(1);
  });

  it("an endless tree of links stops at the page cap and counts what it left out", async () => {
    const { rows, requested, source } = await crawl("kn-tree", `${www.origin}/tree?n=1`, { pageCap: 7 });
    // The first seven pages breadth first are the tree's top three levels.
    expect(rows.map((r) => `${r.depth} ${local(r.url)}`)).toEqual([
      "0 www/tree?n=1",
      "1 www/tree?n=2",
      "1 www/tree?n=3",
      "2 www/tree?n=4",
      "2 www/tree?n=5",
      "2 www/tree?n=6",
      "2 www/tree?n=7",
    ]);
    expect(requested).toHaveLength(7);
    // "The page cap (7) left 8 more pages out." on the Knowledge page: the links of the four last pages.
    expect(source).toMatchObject({ page_cap: 7, run_over_cap: 8 });
  });

  it("an endless chain of links stops at the depth cap (25 links from the start page)", async () => {
    const { rows, requested } = await crawl("kn-chain", `${www.origin}/calendar?m=0`);
    expect(rows).toHaveLength(26);
    expect(Math.max(...rows.map((r) => r.depth))).toBe(25);
    expect(requested).toContain("/calendar?m=25");
    expect(requested).not.toContain("/calendar?m=26");
  }, 120_000);

  it("include and exclude patterns keep a section and leave out a sub-section, on path boundaries", async () => {
    const { rows, requested } = await crawl("kn-patterns", `${www.origin}/shop`, {
      include: ["/shop"],
      exclude: ["/shop/archive"],
    });
    expect(
      Object.fromEntries(rows.map((r) => [local(r.url), `${r.status}${r.reason ? `:${r.reason}` : ""}`])),
    ).toEqual({
      "www/shop": "indexed",
      "www/shop/tea": "indexed",
      "www/shop/archive-notes": "indexed",
      "www/shopping-guide": "skipped:excluded",
      "www/shop/archive/2019": "skipped:excluded",
      "www/about": "skipped:excluded",
    });
    expect(requested.sort()).toEqual(["/shop", "/shop/archive-notes", "/shop/tea"]);
  });
});
