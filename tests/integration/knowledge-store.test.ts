import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "@/lib/db/client";
import { claimPages, replacePageChunks, updatePage } from "@/lib/db/queries/knowledge-pages";
import { fullTextHits } from "@/lib/db/queries/knowledge-search";
import { saveWebsiteSource } from "@/lib/db/queries/knowledge-sources";
import { createTenant } from "@/lib/db/queries/tenants";
import { freshDb, type TestDb } from "../support/db";

// The knowledge tables: row-level security, the claim of a page once per run, and a page's chunks replaced
// by hash so unchanged chunks (and their embeddings) stay as they are.

let t: TestDb;
let a: { id: string };
let b: { id: string };

const settings = {
  startUrl: "https://shop.example/",
  sitemapUrl: null,
  includePatterns: [],
  excludePatterns: [],
  pageCap: 500,
  schedule: "off" as const,
  nextSyncAt: null,
};

beforeAll(async () => {
  t = await freshDb();
  a = await createTenant(t.handle.platform, { slug: "k-a", name: "A" });
  b = await createTenant(t.handle.platform, { slug: "k-b", name: "B" });
});
afterAll(() => t?.close());

const chunk = (ord: number, text: string, lang = "en") => ({
  ord,
  headingPath: "Returns",
  text,
  hash: `h-${text}`,
  lang,
  words: text,
});

describe("knowledge store", () => {
  it("every knowledge table is under forced row-level security", async () => {
    const rows = await rowsOf<{ relname: string; rls: boolean; forced: boolean }>(
      t.handle.platform,
      sql`select relname, relrowsecurity as rls, relforcerowsecurity as forced from pg_class
          where relname in ('knowledge_sources','knowledge_pages','knowledge_chunks','knowledge_words','knowledge_answers')`,
    );
    expect(rows).toHaveLength(5);
    for (const r of rows) expect(r, r.relname).toMatchObject({ rls: true, forced: true });
  });

  it("claims a page once per run, and a tenant never sees another's pages", async () => {
    const sourceId = await t.handle.forTenant(
      a.id,
      async (tx) => (await saveWebsiteSource(tx, a.id, settings)).id,
    );
    const run = "00000000-0000-4000-8000-000000000001";
    const urls = [
      { url: "https://shop.example/", depth: 0 },
      { url: "https://shop.example/returns", depth: 1 },
      { url: "https://shop.example/returns", depth: 2 },
    ];
    const first = await t.handle.forTenant(a.id, (tx) =>
      claimPages(tx, { tenantId: a.id, sourceId, runId: run, urls, max: 10 }),
    );
    expect(first.map((p) => p.url).sort()).toEqual(["https://shop.example/", "https://shop.example/returns"]);
    const again = await t.handle.forTenant(a.id, (tx) =>
      claimPages(tx, { tenantId: a.id, sourceId, runId: run, urls, max: 10 }),
    );
    expect(again).toEqual([]);
    const next = await t.handle.forTenant(a.id, (tx) =>
      claimPages(tx, {
        tenantId: a.id,
        sourceId,
        runId: "00000000-0000-4000-8000-000000000002",
        urls,
        max: 1,
      }),
    );
    expect(next).toHaveLength(1);
    const seenByB = await t.handle.forTenant(b.id, (tx) =>
      rowsOf<{ n: number }>(tx, sql`select count(*)::int as n from knowledge_pages`),
    );
    expect(seenByB[0]!.n).toBe(0);
  });

  it("replaces a page's chunks by hash and folds accents before stemming", async () => {
    const { sourceId, pageId } = await t.handle.forTenant(a.id, async (tx) => {
      const [p] = await rowsOf<{ id: string; source_id: string }>(
        tx,
        sql`select id, source_id from knowledge_pages order by url limit 1`,
      );
      return { sourceId: p!.source_id, pageId: p!.id };
    });
    const page = { tenantId: a.id, sourceId, pageId };
    const first = await t.handle.forTenant(a.id, (tx) =>
      replacePageChunks(tx, page, [
        chunk(0, "Las devoluciones son gratuitas", "es"),
        chunk(1, "Parking behind the shop"),
      ]),
    );
    expect(first).toEqual({ inserted: 2, deleted: 0, kept: 0 });
    const ids = await t.handle.forTenant(a.id, (tx) =>
      rowsOf<{ id: string; text: string }>(tx, sql`select id, text from knowledge_chunks order by ord`),
    );
    const second = await t.handle.forTenant(a.id, (tx) =>
      replacePageChunks(tx, page, [
        chunk(0, "Las devoluciones son gratuitas", "es"),
        chunk(1, "Parking in front"),
      ]),
    );
    expect(second).toEqual({ inserted: 1, deleted: 1, kept: 1 });
    const after = await t.handle.forTenant(a.id, (tx) =>
      rowsOf<{ id: string; text: string }>(tx, sql`select id, text from knowledge_chunks order by ord`),
    );
    expect(after[0]!.id).toBe(ids[0]!.id);
    const hit = await t.handle.forTenant(a.id, (tx) =>
      rowsOf<{ text: string }>(
        tx,
        sql`select text from knowledge_chunks where tsv @@ michi_knowledge_query('es', 'devolución gratuita')`,
      ),
    );
    expect(hit.map((r) => r.text)).toEqual(["Las devoluciones son gratuitas"]);
    const words = await t.handle.forTenant(b.id, (tx) =>
      rowsOf<{ n: number }>(tx, sql`select count(*)::int as n from knowledge_words`),
    );
    expect(words[0]!.n).toBe(0);
  });

  it("the full-text search function (SECURITY DEFINER) finds only the entered tenant's chunks", async () => {
    // Both tenants index a page with the same words; the function runs as the platform role, so the tenant
    // filter inside it is all that keeps B's chunks out of A's search.
    for (const tenant of [a, b]) {
      await t.handle.forTenant(tenant.id, async (tx) => {
        const source = (
          await saveWebsiteSource(tx, tenant.id, { ...settings, startUrl: `https://${tenant.id}.example/` })
        ).id;
        const [page] = await claimPages(tx, {
          tenantId: tenant.id,
          sourceId: source,
          runId: "00000000-0000-4000-8000-000000000009",
          urls: [{ url: `https://${tenant.id}.example/gift`, depth: 0 }],
          max: 1,
        });
        await updatePage(tx, page!.id, { status: "indexed", title: "Gift cards" });
        await replacePageChunks(tx, { tenantId: tenant.id, sourceId: source, pageId: page!.id }, [
          chunk(0, `Gift cards of ${tenant.id} never expire`),
        ]);
      });
    }
    const hits = await t.handle.forTenant(a.id, (tx) => fullTextHits(tx, "gift card expiry", 10));
    expect(hits.hits.map((h) => h.text)).toEqual([`Gift cards of ${a.id} never expire`]);
    // The function on its own (the pages join above reads knowledge_pages under row-level security).
    const raw = await t.handle.forTenant(a.id, (tx) =>
      rowsOf<{ body: string }>(
        tx,
        sql`select body from michi_knowledge_text_hits('gift cards', array['en'], 10)`,
      ),
    );
    expect(raw.map((r) => r.body)).toEqual([`Gift cards of ${a.id} never expire`]);
    // Outside any tenant (no app.tenant_id), the function returns nothing at all.
    const outside = await rowsOf<{ n: number }>(
      t.handle.platform,
      sql`select count(*)::int as n from michi_knowledge_text_hits('gift cards', array['en'], 10)`,
    );
    expect(outside[0]!.n).toBe(0);
  });
});
