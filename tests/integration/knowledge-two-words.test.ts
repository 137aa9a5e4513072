import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fullTextHits } from "@/lib/db/queries/knowledge-search";
import { createTenant } from "@/lib/db/queries/tenants";
import { freshDb, type TestDb } from "../support/db";
import { addSitemapSource } from "../support/knowledge";

// "Minimum should match" in full text (drizzle/0040): once ten passages hold two or more of the question's
// words, a passage holding only one of them is not ranked at all, however often it repeats that word; with
// fewer than ten it still comes in. A page that says "refund" twenty times in its footer must not outrank the
// pages about the refund policy, yet a question only one passage answers still finds it.

let t: TestDb;
let tenant: { id: string };
let sourceId: string;

async function addPage(path: string, texts: string[]) {
  await t.handle.forTenant(tenant.id, (tx) =>
    tx.execute(sql`
      with p as (
        insert into knowledge_pages (tenant_id, source_id, url, title, lang, status)
        values (${tenant.id}, ${sourceId}, ${`https://shop.example${path}`}, ${path}, 'en', 'indexed')
        returning id
      )
      insert into knowledge_chunks (tenant_id, source_id, page_id, ord, heading_path, text, hash, lang, words)
      select ${tenant.id}, ${sourceId}, p.id, t.ord - 1, '', t.text, md5(t.text), 'en', t.text
      from p, unnest(${sql.param(texts)}::text[]) with ordinality as t(text, ord)`),
  );
}

const urlsFor = (question: string) =>
  t.handle.forTenant(tenant.id, async (tx) => (await fullTextHits(tx, question, 40)).hits.map((h) => h.url));

beforeAll(async () => {
  t = await freshDb();
  tenant = await createTenant(t.handle.platform, { slug: "k-two", name: "Two words" });
  sourceId = await addSitemapSource(t.handle, tenant.id, "https://shop.example/sitemap.xml", {
    pageCap: 500,
    schedule: "off",
  });
  await addPage("/footer", [Array.from({ length: 20 }, () => "refund").join(" ")]);
});
afterAll(() => t?.close());

describe("full text ranks passages with two of the question's words alone when there are enough", () => {
  it("with three passages about the refund policy, the one-word footer comes in too, even first", async () => {
    await addPage("/policy", [
      "Our refund policy: thirty days",
      "The refund policy for sale items",
      "Refund policy for gift cards",
    ]);
    const urls = await urlsFor("refund policy");
    expect(urls).toHaveLength(4);
    // Twenty times one word outscores two words once (ts_rank_cd counts each occurrence): why the rule exists.
    expect(urls[0]).toBe("https://shop.example/footer");
  });

  it("with ten or more such passages, the footer that only repeats one word is left out", async () => {
    await addPage(
      "/more",
      Array.from({ length: 8 }, (_, i) => `Refund policy note ${i + 1}: what the refund policy covers`),
    );
    const urls = await urlsFor("refund policy");
    expect(urls).toHaveLength(11);
    expect(urls).not.toContain("https://shop.example/footer");
    // A question whose second word no passage holds is answered from the one-word passages, footer included.
    expect(await urlsFor("refund window")).toContain("https://shop.example/footer");
  });
});
