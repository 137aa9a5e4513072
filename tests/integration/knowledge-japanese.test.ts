import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TenantContext } from "@/lib/auth/access";
import { rowsOf } from "@/lib/db/client";
import type { tenants } from "@/lib/db/schema";
import { startSync } from "@/lib/knowledge/sync";
import { askTestQuestion } from "@/lib/knowledge/views";
import { installTestDb } from "../support/admin-env";
import { makeTenant, makeUser } from "../support/admin-world";
import type { TestDb } from "../support/db";
import { startFixtureSite } from "../support/fixture-site";
import { addSitemapSource, type KnowledgeInstance, startKnowledgeInstance } from "../support/knowledge";

// A Japanese website (no spaces between words) synced and searched in the database the suite runs on
// (PGlite, or Postgres with DATABASE_URL): a question finds the page that answers it, and a question the
// pages do not answer gets found: false from the search_knowledge pack. The pages are our own text.

const PAGES: Record<string, { title: string; body: string }> = {
  "/hours": {
    title: "営業時間",
    body: "<p>当店の営業時間は午前八時から午後六時までです。毎週火曜日は定休日です。</p>",
  },
  "/parking": {
    title: "駐車場のご案内",
    body: "<p>お店の裏に無料の駐車場があります。駐車場は二時間までご利用いただけます。</p>",
  },
  "/returns": {
    title: "返品と返金",
    body: "<p>未開封のコーヒー豆は、レシートがあれば三十日以内に返品できます。返金はお支払いいただいたカードに戻ります。</p>",
  },
  "/reservations": {
    title: "ご予約",
    body: "<p>六名様以上の団体のご予約は、お電話で三日前までにお願いします。</p>",
  },
};

const site = await startFixtureSite({
  routes: {
    "/robots.txt": () => ({ body: "User-agent: *\nAllow: /\n", headers: { "content-type": "text/plain" } }),
    "/sitemap.xml": () => ({
      body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${Object.keys(
        PAGES,
      )
        .map((u) => `<url><loc>${site.origin}${u}</loc></url>`)
        .join("")}</urlset>`,
      headers: { "content-type": "application/xml" },
    }),
    ...Object.fromEntries(
      Object.entries(PAGES).map(([path, p]) => [
        path,
        () => ({
          body: `<!doctype html><html lang="ja"><head><meta charset="utf-8"><title>${p.title}</title></head>
            <body><main><h1>${p.title}</h1>${p.body}</main></body></html>`,
          headers: { "content-type": "text/html; charset=utf-8" },
        }),
      ]),
    ),
  },
});

let t: TestDb;
let shop: typeof tenants.$inferSelect;
let ctx: TenantContext;
let k: KnowledgeInstance;

beforeAll(async () => {
  t = await installTestDb();
  const owner = await makeUser(t.handle, "owner@japanese.test");
  shop = await makeTenant(t.handle, "kn-japanese", [[owner, "owner"]]);
  ctx = {
    user: { ...owner, name: "", isOperator: false, mustChangePassword: false },
    tenant: shop,
    role: "owner",
    db: t.handle,
  } as TenantContext;
  const sourceId = await addSitemapSource(t.handle, shop.id, `${site.origin}/sitemap.xml`, {
    pageCap: 50,
    schedule: "off",
  });
  k = await startKnowledgeInstance(t.handle, site);
  await startSync(t.handle, k.queue, { tenantId: shop.id, sourceId, actor: null, reason: "manual" });
  // expect.poll belongs to tests; the setup waits for the run to end itself.
  const ends = Date.now() + 60_000;
  for (;;) {
    const [row] = await rowsOf<{ sync_state: string }>(
      t.handle.platform,
      sql`select sync_state from knowledge_sources where id = ${sourceId}`,
    );
    if (row?.sync_state === "idle") break;
    if (Date.now() > ends) throw new Error("the Japanese site's sync did not end within a minute");
    await new Promise((r) => setTimeout(r, 250));
  }
}, 90_000);

afterAll(async () => {
  await k?.stop();
  await site.close();
  await t?.close();
});

type Sees = { found: boolean; passages?: { url: string; text: string }[]; note?: string };
async function ask(question: string): Promise<Sees> {
  return JSON.parse((await askTestQuestion(ctx, question)).modelSees) as Sees;
}

describe("a Japanese website", () => {
  it("is indexed as Japanese", async () => {
    const rows = await rowsOf<{ lang: string; n: number }>(
      t.handle.platform,
      sql`select lang, count(*)::int as n from knowledge_pages where tenant_id = ${shop.id} and status = 'indexed' group by lang`,
    );
    expect(rows).toEqual([{ lang: "ja", n: 4 }]);
  });

  it.each([
    ["駐車場はありますか", "/parking", "無料の駐車場"],
    ["営業時間は何時までですか", "/hours", "午前八時"],
    ["コーヒー豆は返品できますか", "/returns", "三十日以内"],
    ["団体で予約できますか", "/reservations", "お電話"],
  ])("%s finds the page that answers it", async (question, path, words) => {
    const sees = await ask(question);
    expect(sees.found).toBe(true);
    expect(sees.passages?.[0]?.url).toBe(`${site.origin}${path}`);
    expect(sees.passages?.[0]?.text).toContain(words);
  });

  it.each(["ペットを連れて行ってもいいですか", "Wi-Fiのパスワードは何ですか"])(
    "%s, which the pages do not answer, is found: false",
    async (question) => {
      const sees = await ask(question);
      expect(sees.found).toBe(false);
      expect(sees.passages).toBeUndefined();
    },
  );

  // The polite request "please tell me your opening hours": its particles and the pieces of ください used to
  // count as question words (2 of 7 matched, under the relevance bar); a question leaves them out now.
  it("営業時間を教えてください ranks the hours page first", async () => {
    const r = await askTestQuestion(ctx, "営業時間を教えてください");
    expect(r.ranked[0]?.url).toBe(`${site.origin}/hours`);
  });
  it("営業時間を教えてください finds the hours page", async () => {
    const sees = await ask("営業時間を教えてください");
    expect(sees.found).toBe(true);
  });
});
