import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { claimPages, replacePageChunks, updatePage } from "@/lib/db/queries/knowledge-pages";
import { saveWebsiteSource } from "@/lib/db/queries/knowledge-sources";
import { packConfigs } from "@/lib/db/schema";
import { installTestDb } from "../support/admin-env";
import { actAs } from "../support/admin-mocks";
import { makeTenant, makeUser } from "../support/admin-world";
import type { TestDb } from "../support/db";

// The Knowledge page's test question with other wordings: the pack runs once with all of them as the model's
// `queries` (the question first), the page lists the searches and says which of them found each page, and a
// wording it cannot run is refused on the card in words the owner can act on. The pages are our own text.

vi.mock("@/lib/auth/claims", () => import("../support/admin-mocks").then((m) => m.claimsModule));
vi.mock("next/headers", () => import("../support/admin-mocks").then((m) => m.headersModule));
vi.mock("next/cache", () => import("../support/admin-mocks").then((m) => m.cacheModule));

const { default: KnowledgePage } = await import("@/app/(admin)/admin/[tenant]/knowledge/page");

let t: TestDb;
let viewer: Awaited<ReturnType<typeof makeUser>>;

const PAGES = [
  {
    url: "https://shop.example/parking",
    title: "Parking",
    text: "Parking is free behind the shop for two hours. The car park closes at 8 pm.",
  },
  {
    url: "https://shop.example/returns",
    title: "Returns",
    text: "Unopened items can be returned within 30 days with the receipt.",
  },
];

beforeAll(async () => {
  t = await installTestDb();
  viewer = await makeUser(t.handle, "viewer@test-queries.test");
  const shop = await makeTenant(t.handle, "kn-queries", [[viewer, "viewer"]]);
  await t.handle.forTenant(shop.id, async (tx) => {
    await tx.insert(packConfigs).values({
      tenantId: shop.id,
      packId: "search_knowledge",
      enabled: true,
      config: { siteUrl: "https://shop.example/", languages: ["en"] },
    });
    const source = await saveWebsiteSource(tx, shop.id, {
      startUrl: "https://shop.example/",
      sitemapUrl: null,
      includePatterns: [],
      excludePatterns: [],
      pageCap: 50,
      schedule: "off",
      nextSyncAt: null,
    });
    const claimed = await claimPages(tx, {
      tenantId: shop.id,
      sourceId: source.id,
      runId: "00000000-0000-4000-8000-000000000041",
      urls: PAGES.map((p) => ({ url: p.url, depth: 0 })),
      max: 10,
    });
    for (const page of claimed) {
      const p = PAGES.find((x) => x.url === page.url)!;
      await updatePage(tx, page.id, { status: "indexed", title: p.title, lang: "en" });
      await replacePageChunks(tx, { tenantId: shop.id, sourceId: source.id, pageId: page.id }, [
        { ord: 0, headingPath: p.title, text: p.text, hash: `h-${p.url}`, lang: "en", words: p.text },
      ]);
    }
  });
}, 60_000);
afterAll(() => t?.close());

async function render(searchParams: Record<string, string | string[]>): Promise<string> {
  actAs(viewer);
  return renderToStaticMarkup(
    await KnowledgePage({
      params: Promise.resolve({ tenant: "kn-queries" }),
      searchParams: Promise.resolve(searchParams),
    }),
  );
}

/** The text of the page's test result, tags removed, so assertions read as the owner reads it. */
const visible = (html: string) =>
  html
    .replace(/<[^>]+>/g, " ")
    .replaceAll("&quot;", '"')
    .replaceAll("&#x27;", "'")
    .replace(/\s+/g, " ");

describe("the test question's other wordings", () => {
  it("runs the pack once with every wording and shows which search found which page", async () => {
    const html = await render({
      ask: "free parking",
      also: ["returned within 30 days", "駐車場は無料ですか"],
    });
    const text = visible(html);
    expect(text).toContain("Searched with, all at once:");
    expect(text).toMatch(/“free parking” \(counts fully\)/);
    expect(text).toMatch(/“returned within 30 days” \(counts half\)/);
    expect(text).toMatch(/Parking · Parking · found by search 1\b/);
    expect(text).toMatch(/Returns · Returns · found by search 2\b/);
    // What the model receives is the one result of the one run: both pages.
    const pre = /<pre[^>]*>([\s\S]*?)<\/pre>/.exec(html)![1]!;
    expect(pre).toContain("https://shop.example/parking");
    expect(pre).toContain("https://shop.example/returns");
    // The wordings stay in the form, so a reload asks the same.
    expect(html).toContain('value="returned within 30 days"');
  });

  it("hands the pack the queries in order, the question first", async () => {
    const html = await render({ ask: "returned within 30 days", also: ["free parking", ""] });
    // The question's own page ranks first: its search counts fully, the other wording half.
    const links = [...html.matchAll(/<li><a href="([^"]+)"/g)].map((m) => m[1]);
    expect(links).toEqual(["https://shop.example/returns", "https://shop.example/parking"]);
  });

  it("a question alone shows no list of searches, as before", async () => {
    const text = visible(await render({ ask: "free parking", also: ["", ""] }));
    expect(text).not.toContain("Searched with");
    expect(text).not.toContain("found by");
    expect(text).toContain("Parking");
  });

  it("refuses what it cannot run, saying why, and keeps what was typed", async () => {
    const cases: [Record<string, string | string[]>, RegExp][] = [
      [{ ask: "", also: ["free parking"] }, /Write the test question first/],
      [{ ask: "x".repeat(201) }, /at most 200 characters.*it has 201/],
      [{ ask: "parking", also: ["y".repeat(250)] }, /Wording 2 can be at most 200 characters.*it has 250/],
      [{ ask: "Parking", also: ["parking "] }, /Wording 2 is the same as the question/],
      [{ ask: "parking", also: ["a", "b", "c"] }, /At most 2 other wordings/],
    ];
    for (const [params, message] of cases) {
      const html = await render(params);
      const alert = /<p id="test-error" role="alert"[^>]*>([\s\S]*?)<\/p>/.exec(html)?.[1];
      expect(visible(alert ?? ""), JSON.stringify(params)).toMatch(message);
      expect(html).not.toContain('data-testid="test-result"');
      expect(html).toContain('aria-invalid="true"');
    }
    const kept = await render({ ask: "Parking", also: ["parking "] });
    expect(kept).toContain('value="Parking"');
    expect(kept).toContain('value="parking "');
  });
});
