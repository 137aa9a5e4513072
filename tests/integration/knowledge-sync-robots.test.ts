import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "@/lib/db/client";
import { createTenant } from "@/lib/db/queries/tenants";
import { searchKnowledge } from "@/lib/knowledge/search";
import { startSync } from "@/lib/knowledge/sync";
import { freshDb, type TestDb } from "../support/db";
import { type FixtureReply, type FixtureRequest, startFixtureSite } from "../support/fixture-site";
import { addSitemapSource, type KnowledgeInstance, startKnowledgeInstance } from "../support/knowledge";

// A site having a bad minute must not cost the business its index. robots.txt answering a server error or 429
// means nothing is fetched this run (RFC 9309 §2.3.1.4) while what was indexed stays, as Google does
// (developers.google.com/search/docs/crawling-indexing/robots/robots_txt, "HTTP status codes"); a page
// answering 5xx keeps its last good version; a passing error retried then answered works as if nothing happened.

/** What the next requests to a path answer: a status per request, then the page itself. */
const failures = new Map<string, number[]>();
let parkingText = "Free parking behind the café for two hours.";

function failing(path: string): FixtureReply | null {
  const queue = failures.get(path);
  const status = queue?.shift();
  if (queue && queue.length === 0) failures.delete(path);
  if (status === undefined) return null;
  // A status repeated by -1 keeps answering it: a site down for the whole sync.
  if (status < 0) {
    failures.set(path, [status]);
    return { status: -status, body: "down", headers: { "content-type": "text/html" } };
  }
  return { status, body: "busy", headers: { "content-type": "text/html", "retry-after": "1" } };
}

function page(title: string, text: () => string) {
  return (req: FixtureRequest): FixtureReply =>
    failing(req.path) ?? {
      body: `<!doctype html><html lang="en"><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${text()}</p></main></body></html>`,
      headers: { "content-type": "text/html; charset=utf-8" },
    };
}

const site = await startFixtureSite({
  routes: {
    "/robots.txt": (req: FixtureRequest) =>
      failing(req.path) ?? {
        body: "User-agent: *\nDisallow: /private/\n",
        headers: { "content-type": "text/plain" },
      },
    "/sitemap.xml": () => ({
      body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${site.origin}/opening</loc></url><url><loc>${site.origin}/parking</loc></url></urlset>`,
      headers: { "content-type": "application/xml" },
    }),
    "/opening": page("Opening hours", () => "We open every day from eight in the morning until six."),
    "/parking": page("Parking", () => parkingText),
  },
});

let t: TestDb;
let tenantId: string;
let sourceId: string;
const running: KnowledgeInstance[] = [];

beforeAll(async () => {
  t = await freshDb();
  tenantId = (await createTenant(t.handle.platform, { slug: "kn-robots", name: "Michi" })).id;
  sourceId = await addSitemapSource(t.handle, tenantId, `${site.origin}/sitemap.xml`, {
    pageCap: 50,
    schedule: "off",
  });
}, 60_000);

afterEach(async () => {
  failures.clear();
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

async function sourceRow() {
  const [row] = await rowsOf<{
    sync_state: string;
    last_sync_error: string | null;
    robots_txt: string | null;
  }>(
    t.handle.platform,
    sql`select sync_state, last_sync_error, robots_txt from knowledge_sources where id = ${sourceId}`,
  );
  return row!;
}

async function synced() {
  const k = await instance();
  const from = site.requests.length;
  await startSync(t.handle, k.queue, { tenantId, sourceId, actor: null, reason: "manual" });
  await expect
    .poll(async () => (await sourceRow()).sync_state, { timeout: 60_000, interval: 250 })
    .toBe("idle");
  return site.requests.slice(from).map((r) => r.path);
}

async function pages() {
  const rows = await rowsOf<{ url: string; status: string; reason: string | null; chunks: number }>(
    t.handle.platform,
    sql`select p.url, p.status, p.reason, (select count(*)::int from knowledge_chunks c where c.page_id = p.id) as chunks
        from knowledge_pages p where p.source_id = ${sourceId} order by p.url`,
  );
  return Object.fromEntries(
    rows.map((r) => [new URL(r.url).pathname, `${r.status}${r.reason ? `:${r.reason}` : ""}/${r.chunks}`]),
  );
}

async function answers(question: string) {
  return (await searchKnowledge(t.handle, tenantId, question)).passages.map((p) => new URL(p.url).pathname);
}

describe("a sync when the site has a bad minute", () => {
  it("indexes both pages while the site is well", async () => {
    await synced();
    expect(await pages()).toEqual({ "/opening": "indexed/1", "/parking": "indexed/1" });
  });

  for (const [status, words] of [
    [503, "answered HTTP 503 (a server error)"],
    [429, "answered HTTP 429 (too many requests)"],
  ] as const) {
    it(`robots.txt answering ${status} on every try fetches nothing, keeps the index and says why`, async () => {
      const before = await sourceRow();
      failures.set("/robots.txt", [-status]);
      const requested = await synced();
      // Tried again (the job's retry), then given up: no sitemap, no page asked for.
      expect(requested).toEqual(["/robots.txt", "/robots.txt"]);
      expect(await pages()).toEqual({ "/opening": "indexed/1", "/parking": "indexed/1" });
      expect(await answers("where can I park my car")).toContain("/parking");
      const after = await sourceRow();
      expect(after.robots_txt).toBe(before.robots_txt);
      expect(after.last_sync_error).toContain(`robots.txt ${words}`);
      expect(after.last_sync_error).toContain("The pages indexed before stay searchable");
    });
  }

  it("robots.txt failing once then answering syncs as usual, with no error left on the page", async () => {
    failures.set("/robots.txt", [503]);
    parkingText = "Free parking behind the café for three hours on weekends.";
    const requested = await synced();
    expect(requested.filter((p) => p === "/robots.txt")).toHaveLength(2);
    expect(requested).toContain("/parking");
    expect((await sourceRow()).last_sync_error).toBeNull();
    expect(await pages()).toEqual({ "/opening": "indexed/1", "/parking": "indexed/1" });
  });

  it("a page answering 503 on every try keeps its last good version and shows the status", async () => {
    failures.set("/parking", [-503]);
    const requested = await synced();
    expect(requested.filter((p) => p === "/parking")).toHaveLength(2);
    expect(await pages()).toEqual({ "/opening": "indexed/1", "/parking": "indexed:HTTP 503/1" });
    expect(await answers("parking on weekends")).toContain("/parking");
  });

  it("a page answering 429 once is retried and its new version indexed", async () => {
    failures.set("/parking", [429]);
    parkingText = "Parking is now at the garage across the street, free for customers.";
    const requested = await synced();
    expect(requested.filter((p) => p === "/parking")).toHaveLength(2);
    expect(await pages()).toEqual({ "/opening": "indexed/1", "/parking": "indexed/1" });
    expect(await answers("garage across the street")).toContain("/parking");
  });
});
