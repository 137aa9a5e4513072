import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { listPages, pageCounts } from "@/lib/db/queries/knowledge-pages";
import { saveWebsiteSource } from "@/lib/db/queries/knowledge-sources";
import { createTenant } from "@/lib/db/queries/tenants";
import { freshDb, type TestDb } from "../support/db";
import { type FixtureReply, redirectTo, startFixtureSite } from "../support/fixture-site";
import { type KnowledgeInstance, startKnowledgeInstance, syncToIdle } from "../support/knowledge";

// The crawler's manners as RFC 9309 and the X-Robots-Tag header ask: every host a crawl touches has its own
// robots.txt (read once per run), every redirect hop is checked against the robots.txt of its host before it
// is requested, a disallowed path cannot be reached by another spelling (`%70` for `p`, `//`), and a page whose
// response says noindex is not indexed. Also: a sitemap source follows the links of its pages to pages its
// sitemap forgot; a page that is 404 from its first fetch is "not found", not "pending"; the Knowledge
// page's Passages column counts each page's passages.

function html(title: string, links: string[] = [], headers: Record<string, string> = {}): () => FixtureReply {
  const nav = links.map((l) => `<a href="${l}">${l}</a>`).join(" ");
  return () => ({
    body: `<!doctype html><html lang="en"><head><title>${title}</title></head><body><nav>${nav}</nav>
      <main><h1>${title}</h1><p>This page is about ${title}, for the guests of the Michi café in Kyoto.</p></main></body></html>`,
    headers: { "content-type": "text/html; charset=utf-8", ...headers },
  });
}

function sitemap(urls: () => string[]): () => FixtureReply {
  return () => ({
    body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls()
      .map((u) => `<url><loc>${u}</loc></url>`)
      .join("")}</urlset>`,
    headers: { "content-type": "application/xml" },
  });
}

// The business's second host (a shop on its own port: another scheme+host+port, so another robots.txt).
const shop = await startFixtureSite({
  routes: {
    "/robots.txt": () => ({
      body: "User-agent: *\nDisallow: /secret/\n",
      headers: { "content-type": "text/plain" },
    }),
    "/secret/page": html("Shop secret page"),
    "/secret/start": html("Shop secret start"),
    "/open": html("Shop open page"),
  },
});

// A third host whose robots.txt answers a server error: nothing of it may be fetched this run (RFC 9309 §2.3.1.4).
const down = await startFixtureSite({
  routes: {
    "/robots.txt": () => ({ status: 503, body: "busy", headers: { "content-type": "text/plain" } }),
    "/page": html("Page on a host whose robots.txt is down"),
  },
});

const main = await startFixtureSite({
  routes: {
    "/robots.txt": () => ({
      body: "User-agent: *\nDisallow: /k/private/\nDisallow: /private/\n",
      headers: { "content-type": "text/plain" },
    }),
    "/welcome": html("Welcome"),
    "/sitemap-hosts.xml": sitemap(() => [
      `${main.origin}/welcome`,
      `${shop.origin}/secret/page`,
      `${shop.origin}/open`,
    ]),
    "/start": redirectTo(`${shop.origin}/secret/start`, 301),
    "/sitemap-hop.xml": sitemap(() => [`${main.origin}/welcome`, `${main.origin}/old`]),
    "/old": redirectTo("/private/new", 301),
    "/private/new": html("Moved into private"),
    "/sitemap-spellings.xml": sitemap(() => [
      `${main.origin}/welcome`,
      `${main.origin}/k/%70rivate/notes`,
      `${main.origin}/k//private/notes`,
    ]),
    "/k/%70rivate/notes": html("Private notes, escaped"),
    "/k//private/notes": html("Private notes, doubled slash"),
    "/k/private/notes": html("Private notes"),
    "/sitemap-xrobots.xml": sitemap(() =>
      ["/xr-noindex", "/xr-none", "/xr-ours", "/xr-googlebot"].map((p) => `${main.origin}${p}`),
    ),
    "/xr-noindex": html("Header noindex", [], { "x-robots-tag": "noindex" }),
    "/xr-none": html("Header none", [], { "x-robots-tag": "none" }),
    "/xr-ours": html("Header for us", [], { "x-robots-tag": "michi-chat: noindex" }),
    "/xr-googlebot": html("Header for another crawler", [], { "x-robots-tag": "googlebot: noindex" }),
    "/sitemap-down.xml": sitemap(() => [`${main.origin}/welcome`, `${down.origin}/page`]),
    "/sitemap-one.xml": sitemap(() => [`${main.origin}/welcome`]),
    "/sitemap-404.xml": sitemap(() => [`${main.origin}/welcome`, `${main.origin}/gone`]),
    "/sitemap-links.xml": sitemap(() => [`${main.origin}/hub`]),
    "/hub": html("Hub", ["/linked", "/k/private/linked", `${shop.origin}/open`]),
    "/linked": html("Linked but not in the sitemap", ["/linked/deeper"]),
    "/linked/deeper": html("Two links from the sitemap"),
    "/k/private/linked": html("Linked private page"),
  },
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
  await main.close();
  await shop.close();
  await down.close();
  await t?.close();
});

const label = (url: string) => {
  const u = new URL(url);
  const names: Record<string, string> = { [main.host]: "main", [shop.host]: "shop", [down.host]: "down" };
  return `${names[u.host] ?? u.host}${u.pathname}`;
};

/** A business whose website source is `source`, synced once: its pages and what each site was asked for. */
async function crawl(slug: string, source: { sitemapUrl?: string; startUrl?: string }) {
  const tenantId = (await createTenant(t.handle.platform, { slug, name: slug })).id;
  const sourceId = await t.handle.forTenant(
    tenantId,
    async (tx) =>
      (
        await saveWebsiteSource(tx, tenantId, {
          startUrl: source.startUrl ?? null,
          sitemapUrl: source.sitemapUrl ?? null,
          includePatterns: [],
          excludePatterns: [],
          pageCap: 50,
          schedule: "off",
          nextSyncAt: null,
        })
      ).id,
  );
  const k = await startKnowledgeInstance(t.handle, main, { alsoSites: [shop, down] });
  running.push(k);
  const from = { main: main.requests.length, shop: shop.requests.length, down: down.requests.length };
  await syncToIdle(t.handle, k.queue, tenantId, sourceId, 60_000);
  const listed = await t.handle.forTenant(tenantId, (tx) => listPages(tx, sourceId));
  const counts = await t.handle.forTenant(tenantId, (tx) => pageCounts(tx, sourceId));
  const pages = Object.fromEntries(
    listed.map((p) => [label(p.url), `${p.status}${p.reason ? `:${p.reason}` : ""}`]),
  );
  const passages = Object.fromEntries(listed.map((p) => [label(p.url), p.chunks]));
  const asked = (s: typeof main, n: number) => s.requests.slice(n).map((r) => r.path);
  const reasons = Object.fromEntries(listed.map((p) => [label(p.url), p.reason]));
  return {
    pages,
    reasons,
    passages,
    counts,
    main: asked(main, from.main),
    shop: asked(shop, from.shop),
    down: asked(down, from.down),
  };
}

describe("robots.txt per host and per hop", () => {
  it("a sitemap entry on another host of the site is checked against that host's robots.txt", async () => {
    const r = await crawl("kn-rules-hosts", { sitemapUrl: `${main.origin}/sitemap-hosts.xml` });
    expect(r.pages).toEqual({
      "main/welcome": "indexed",
      "shop/open": "indexed",
      "shop/secret/page": "skipped:robots",
    });
    expect(r.shop).not.toContain("/secret/page");
    // The shop's robots.txt is read once for the run, however many of its pages are fetched.
    expect(r.shop.filter((p) => p === "/robots.txt")).toHaveLength(1);
  });

  it("a start page redirecting to another host is not followed where that host's robots.txt disallows", async () => {
    const r = await crawl("kn-rules-start", { startUrl: `${main.origin}/start` });
    expect(r.pages).toEqual({ "main/start": "skipped:robots" });
    expect(r.shop).toEqual(["/robots.txt"]);
  });

  it("a redirect hop into a disallowed path is not followed", async () => {
    const r = await crawl("kn-rules-hop", { sitemapUrl: `${main.origin}/sitemap-hop.xml` });
    expect(r.pages).toEqual({ "main/old": "skipped:robots", "main/welcome": "indexed" });
    expect(r.main).toContain("/old");
    expect(r.main).not.toContain("/private/new");
  });

  it("a disallowed path spelt with an escaped letter or a doubled slash is still disallowed", async () => {
    const r = await crawl("kn-rules-spell", { sitemapUrl: `${main.origin}/sitemap-spellings.xml` });
    expect(r.pages).toEqual({
      "main/k/%70rivate/notes": "skipped:robots",
      "main/k//private/notes": "skipped:robots",
      "main/welcome": "indexed",
    });
    expect(r.main.filter((p) => p.startsWith("/k/"))).toEqual([]);
  });
});

describe("another host's robots.txt answering a server error", () => {
  it("fetches nothing of that host this run and says why on its page", async () => {
    const r = await crawl("kn-rules-down", { sitemapUrl: `${main.origin}/sitemap-down.xml` });
    expect(r.pages).toMatchObject({ "main/welcome": "indexed" });
    expect(r.pages["down/page"]).toMatch(/^failed:/);
    expect(r.reasons["down/page"]).toContain("robots.txt");
    expect(r.down.filter((p) => p !== "/robots.txt")).toEqual([]);
  });
});

describe("the X-Robots-Tag header", () => {
  it("noindex and none keep a page out, for every crawler or named for ours; another crawler's does not", async () => {
    const r = await crawl("kn-rules-xrobots", { sitemapUrl: `${main.origin}/sitemap-xrobots.xml` });
    expect(r.pages).toEqual({
      "main/xr-googlebot": "indexed",
      "main/xr-none": "skipped:noindex",
      "main/xr-noindex": "skipped:noindex",
      "main/xr-ours": "skipped:noindex",
    });
    expect(r.passages).toMatchObject({ "main/xr-noindex": 0, "main/xr-none": 0, "main/xr-ours": 0 });
  });
});

describe("a sitemap source", () => {
  it("follows its pages' links on the same host to pages the sitemap forgot, never into a disallowed path", async () => {
    const r = await crawl("kn-rules-links", { sitemapUrl: `${main.origin}/sitemap-links.xml` });
    expect(r.pages).toEqual({
      "main/hub": "indexed",
      "main/k/private/linked": "skipped:robots",
      "main/linked": "indexed",
      "main/linked/deeper": "indexed",
    });
    expect(r.main).not.toContain("/k/private/linked");
  });
});

describe("the Knowledge page's figures", () => {
  it("a page 404 on its first fetch is failed as not found, and not counted as found", async () => {
    const r = await crawl("kn-rules-404", { sitemapUrl: `${main.origin}/sitemap-404.xml` });
    expect(r.pages).toEqual({ "main/gone": "failed:not_found", "main/welcome": "indexed" });
    expect(r.counts).toMatchObject({ found: 1, indexed: 1, pending: 0, failed: 1 });
  });

  it("the Passages column counts each page's own passages", async () => {
    const r = await crawl("kn-rules-passages", { sitemapUrl: `${main.origin}/sitemap-one.xml` });
    expect(r.pages).toEqual({ "main/welcome": "indexed" });
    expect(r.passages).toEqual({ "main/welcome": 1 });
  });
});
