import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "@/lib/db/client";
import { createTenant } from "@/lib/db/queries/tenants";
import { chunkSections, searchText } from "@/lib/knowledge/extract";
import { indexDocument } from "@/lib/knowledge/index-document";
import { searchKnowledge } from "@/lib/knowledge/search";
import type { JobQueue } from "@/lib/queue";
import { freshDb, type TestDb } from "../support/db";
import { addSitemapSource } from "../support/knowledge";

// Without an embeddings model, full text finds only the words a page uses. A site that defines an
// abbreviation once ("Personal Identity Verification (PIV)") and then uses one form or the other would leave
// a visitor who types the other form without the page; the abbreviations learned at indexing time bridge it,
// for the business whose pages defined them only.

let t: TestDb;
const tenants: Record<"a" | "b", string> = { a: "", b: "" };
const sources: Record<"a" | "b", string> = { a: "", b: "" };

async function index(who: "a" | "b", path: string, text: string) {
  const tenantId = tenants[who];
  await t.handle.forTenant(tenantId, async (tx) => {
    const [page] = await rowsOf<{ id: string }>(
      tx,
      sql`insert into knowledge_pages (tenant_id, source_id, url, title, lang, status)
          values (${tenantId}, ${sources[who]}, ${`https://${who}.example${path}`}, ${path}, 'en', 'pending')
          returning id`,
    );
    await indexDocument(
      tx,
      { queue: {} as JobQueue, chunk: chunkSections, searchText, embeddings: false },
      { id: page!.id, tenantId, sourceId: sources[who], status: "pending", contentHash: null },
      {
        title: path,
        lang: "en",
        canonical: null,
        noindex: false,
        links: [],
        hash: path,
        sections: [{ headingPath: [], text }],
      },
    );
    await tx.execute(sql`update knowledge_pages set status = 'indexed' where id = ${page!.id}`);
  });
}

const paths = async (who: "a" | "b", q: string) =>
  (await searchKnowledge(t.handle, tenants[who], q)).passages.map((p) => new URL(p.url).pathname);

beforeAll(async () => {
  t = await freshDb();
  for (const who of ["a", "b"] as const) {
    tenants[who] = (await createTenant(t.handle.platform, { slug: `k-abbr-${who}`, name: who })).id;
    sources[who] = await addSitemapSource(t.handle, tenants[who], `https://${who}.example/sitemap.xml`, {
      pageCap: 50,
      schedule: "off",
    });
  }
  await index("a", "/about-piv", "A Personal Identity Verification (PIV) card is issued by your agency.");
  await index("a", "/smart-card", "Sign in with a personal identity verification card from your desk.");
  await index("a", "/reader", "Insert your PIV into the reader before you start.");
  // The other business uses the long form without ever defining the abbreviation.
  await index("b", "/smart-card", "Sign in with a personal identity verification card from your desk.");
});
afterAll(() => t?.close());

describe("a site's own abbreviations bridge a query without an embeddings model", () => {
  it("finds the page that spells out what the visitor abbreviated", async () => {
    expect(await paths("a", "piv")).toContain("/smart-card");
  });

  it("finds the page that abbreviates what the visitor spelt out", async () => {
    expect(await paths("a", "personal identity verification")).toContain("/reader");
  });

  it("uses only the business's own pages' abbreviations", async () => {
    expect(await paths("b", "piv")).toEqual([]);
    const terms = await t.handle.forTenant(tenants.b, (tx) =>
      rowsOf<{ n: number }>(tx, sql`select count(*)::int as n from knowledge_terms`),
    );
    expect(terms[0]!.n).toBe(0);
  });
});
