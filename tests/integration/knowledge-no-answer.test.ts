import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TenantContext } from "@/lib/auth/access";
import { claimPages, replacePageChunks, updatePage } from "@/lib/db/queries/knowledge-pages";
import { saveWebsiteSource } from "@/lib/db/queries/knowledge-sources";
import { conversations, messages, type tenants, toolRuns } from "@/lib/db/schema";
import { unansweredReport } from "@/lib/insights/unanswered";
import { askTestQuestion } from "@/lib/knowledge/views";
import { installTestDb } from "../support/admin-env";
import { makeTenant, makeUser } from "../support/admin-world";
import type { TestDb } from "../support/db";

// No answer on the site: a question that shares a word or two with the pages gets them as "partial" passages
// with the instruction to answer only from passages that answer (the model abstains; issue 40 dropped the
// word-share bar, which turned away answerable questions); a question with no word on the site gets "nothing
// relevant"; and the turn that got that answer counts in Unanswered questions.

let t: TestDb;
let shop: typeof tenants.$inferSelect;
let ctx: TenantContext;

const PAGES = [
  {
    url: "https://shop.example/gift-cards",
    title: "Gift cards",
    text: "Gift cards never expire. You can check the balance of a gift card at the till or online.",
  },
  {
    url: "https://shop.example/returns",
    title: "Returns",
    text: "Unopened items can be returned within 30 days with the receipt. Refunds go back to the card you paid with.",
  },
  {
    url: "https://shop.example/visit",
    title: "Visit us",
    text: "The shop is open Monday to Saturday. Parking is free behind the shop for two hours.",
  },
];

beforeAll(async () => {
  t = await installTestDb();
  const owner = await makeUser(t.handle, "owner@no-answer.test");
  shop = await makeTenant(t.handle, "kn-no-answer", [[owner, "owner"]]);
  ctx = {
    user: { ...owner, name: "", isOperator: false, mustChangePassword: false },
    tenant: shop,
    role: "owner",
    db: t.handle,
  } as TenantContext;
  await t.handle.forTenant(shop.id, async (tx) => {
    const source = await saveWebsiteSource(tx, shop.id, {
      startUrl: "https://shop.example/",
      sitemapUrl: null,
      includePatterns: [],
      excludePatterns: [],
      pageCap: 500,
      schedule: "off",
      nextSyncAt: null,
    });
    const claimed = await claimPages(tx, {
      tenantId: shop.id,
      sourceId: source.id,
      runId: "00000000-0000-4000-8000-000000000027",
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

afterAll(async () => {
  await t?.close();
});

describe("questions the site does not answer", () => {
  it("a question about the site gets passages; one it does not answer gets found: false", async () => {
    const answered = await askTestQuestion(ctx, "do gift cards expire");
    const found = JSON.parse(answered.modelSees) as { found: boolean; passages: { title: string }[] };
    expect(found.found).toBe(true);
    expect(found.passages[0]?.title).toBe("Gift cards");

    // "shop" is on the site, but most of the question is not: the passages come marked partial, and the model
    // is told to answer only from one that answers, else to say it does not know.
    const partial = await askTestQuestion(ctx, "does the shop sell fishing licences for the lake");
    const weak = JSON.parse(partial.modelSees) as {
      found: boolean;
      note: string;
      passages: { strength: string }[];
    };
    expect(weak.found).toBe(true);
    expect(weak.passages.map((p) => p.strength)).not.toContain("strong");
    expect(weak.note).toMatch(/do not know/);
    expect(answered.passages[0]?.strength).toBe("strong");

    // No word of this one is on the site.
    const unanswered = await askTestQuestion(ctx, "how do I bake sourdough bread");
    const sees = JSON.parse(unanswered.modelSees) as { found: boolean; note: string; passages?: unknown };
    expect(sees.found).toBe(false);
    expect(sees.passages).toBeUndefined();
    expect(sees.note).toMatch(/do not know/);
    expect(unanswered.passages).toEqual([]);
  });

  it("the turn that got nothing relevant counts in Unanswered questions", async () => {
    const question = "how do I bake sourdough bread";
    const result = (await askTestQuestion(ctx, question)).modelSees;
    await t.handle.forTenant(shop.id, async (tx) => {
      const [c] = await tx.insert(conversations).values({ tenantId: shop.id, visitorId: "v-1" }).returning();
      await tx
        .insert(messages)
        .values({ tenantId: shop.id, conversationId: c!.id, role: "user", content: question });
      const [a] = await tx
        .insert(messages)
        .values({
          tenantId: shop.id,
          conversationId: c!.id,
          role: "assistant",
          content: "I don't know that, sorry. Shall I put you in touch with someone from the shop?",
          status: "complete",
          createdAt: new Date(Date.now() + 1000),
        })
        .returning();
      await tx.insert(toolRuns).values({
        tenantId: shop.id,
        conversationId: c!.id,
        messageId: a!.id,
        packId: "search_knowledge",
        callId: "call-1",
        args: { query: question },
        result,
        resultChars: result.length,
        resultTokens: 20,
        durationMs: 5,
        outcome: "ok",
      });
    });
    const report = await t.handle.forTenant(shop.id, (tx) =>
      unansweredReport(tx, shop.id, { now: new Date(Date.now() + 60_000) }),
    );
    expect(report.map((g) => ({ question: g.question, why: g.why }))).toEqual([
      { question, why: ["not_found"] },
    ]);
  });
});
