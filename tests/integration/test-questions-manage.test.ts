import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { TenantContext } from "@/lib/auth/access";
import { botFormSchema } from "@/lib/bot/form";
import { updateBotSettings } from "@/lib/bot/settings";
import { insertAnswer } from "@/lib/db/queries/knowledge-answers";
import { createTenant } from "@/lib/db/queries/tenants";
import { addMembership } from "@/lib/db/queries/users";
import { conversations, messageFeedback, messages, testQuestions, testRuns } from "@/lib/db/schema";
import {
  addTestQuestion,
  deleteTestQuestion,
  exportTestQuestions,
  importTestQuestions,
  seedTestQuestions,
  updateTestQuestion,
} from "@/lib/test-questions/manage";
import { loadTestQuestionsView } from "@/lib/test-questions/views";
import { makeUser } from "../support/admin-world";
import { freshDb, type TestDb } from "../support/db";
import { type FixtureReply, startFixtureSite } from "../support/fixture-site";
import {
  addSitemapSource,
  type KnowledgeInstance,
  startKnowledgeInstance,
  syncToIdle,
} from "../support/knowledge";

// The Test questions page's use cases (issue 42): one-click seeds from the site (after a real sync of a
// fixture site), curated answers, rated-down answers; CSV in and out; editing; and the automatic run a sync
// that changed a page (or a change of the bot's prompt) asks for, debounced into one, and none when nothing
// changed.

let prices = "<h2>Cuts</h2><p>A haircut is 25 € and a beard trim 12 €.</p>";
const page = (title: string, body: () => string) => (): FixtureReply => ({
  body: `<!doctype html><html lang="en"><head><title>${title} | Salon Michi</title></head><body><main><h1>${title}</h1>${body()}</main></body></html>`,
  headers: { "content-type": "text/html; charset=utf-8" },
});
const site = await startFixtureSite({
  routes: {
    "/robots.txt": () => ({ body: "User-agent: *\n", headers: { "content-type": "text/plain" } }),
    "/sitemap.xml": () => ({
      body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${site.origin}/prices</loc></url><url><loc>${site.origin}/hours</loc></url></urlset>`,
      headers: { "content-type": "application/xml" },
    }),
    "/prices": page("Prices", () => prices),
    "/hours": page("Opening hours", () => "<p>We open Tuesday to Saturday, 9:00 to 18:00.</p>"),
  },
});

let t: TestDb;
let owner: TenantContext;
let viewer: TenantContext;
let sourceId: string;
let k: KnowledgeInstance;

beforeAll(async () => {
  t = await freshDb();
  const tenant = await createTenant(t.handle.platform, {
    slug: "salon",
    name: "Salon Michi",
    siteDomains: [site.host],
  });
  const o = await makeUser(t.handle, "owner@salon.test");
  const v = await makeUser(t.handle, "viewer@salon.test");
  await addMembership(t.handle.platform, tenant.id, o.id, "owner");
  await addMembership(t.handle.platform, tenant.id, v.id, "viewer");
  const user = (u: typeof o) => ({
    id: u.id,
    email: u.email,
    name: "",
    isOperator: false,
    mustChangePassword: false,
  });
  owner = { db: t.handle, tenant, role: "owner", user: user(o) };
  viewer = { db: t.handle, tenant, role: "viewer", user: user(v) };
  sourceId = await addSitemapSource(t.handle, tenant.id, `${site.origin}/sitemap.xml`, {
    pageCap: 50,
    schedule: "off",
  });
  k = await startKnowledgeInstance(t.handle, site);
}, 60_000);
afterEach(async () => {
  await t.handle.platform.delete(testRuns).where(eq(testRuns.tenantId, owner.tenant.id));
});
afterAll(async () => {
  await k?.stop();
  await site.close();
  await t?.close();
});

const runs = () => t.handle.platform.select().from(testRuns).where(eq(testRuns.tenantId, owner.tenant.id));
const questions = () =>
  t.handle.platform.select().from(testQuestions).where(eq(testQuestions.tenantId, owner.tenant.id));

describe("seeding and syncing", () => {
  it("seeds one question per indexed page, each citing its page; a sync that changes a page asks for one run", async () => {
    await syncToIdle(t.handle, k.queue, owner.tenant.id, sourceId);
    expect(await runs()).toEqual([]); // no questions yet: no run
    expect(await seedTestQuestions(owner, "site")).toEqual({ added: 2 });
    expect(await seedTestQuestions(owner, "site")).toEqual({ added: 0 });
    const view = await loadTestQuestionsView(viewer);
    expect(view.questions.map((q) => [q.question, q.expect.citeUrl]).sort()).toEqual([
      ["What can you tell me about Opening hours?", `${site.origin}/hours`],
      ["What can you tell me about Prices?", `${site.origin}/prices`],
    ]);
    expect(view.pages.map((p) => p.url).sort()).toEqual([`${site.origin}/hours`, `${site.origin}/prices`]);

    await syncToIdle(t.handle, k.queue, owner.tenant.id, sourceId);
    expect(await runs()).toEqual([]); // nothing changed on the site

    prices = "<h2>Cuts</h2><p>A haircut is 28 € and a beard trim 12 €.</p>";
    await syncToIdle(t.handle, k.queue, owner.tenant.id, sourceId);
    const [run] = await runs();
    expect(run).toMatchObject({ status: "pending", triggers: ["knowledge"] });
  });

  it("a change of the bot's prompt asks for a run; a change of its colour does not", async () => {
    const form = { displayName: "Michi", language: "en", color: "#0f766e", position: "right" };
    await updateBotSettings(owner, botFormSchema([]).parse(form));
    await t.handle.platform.delete(testRuns).where(eq(testRuns.tenantId, owner.tenant.id));
    await updateBotSettings(owner, botFormSchema([]).parse({ ...form, color: "#112233" }));
    expect(await runs()).toEqual([]);
    await updateBotSettings(owner, botFormSchema([]).parse({ ...form, instructions: "Answer briefly." }));
    expect((await runs()).map((r) => r.triggers)).toEqual([["bot"]]);
  });

  it("seeds from curated answers (with their figures) and from answers rated down", async () => {
    const tenantId = owner.tenant.id;
    await t.handle.forTenant(tenantId, async (tx) => {
      await insertAnswer(tx, {
        tenantId,
        questions: ["Do you have parking?"],
        answer: "Yes, 3 € an hour.",
        lang: "en",
        createdBy: null,
      });
      const [c] = await tx
        .insert(conversations)
        .values({ tenantId, visitorId: "v1", locale: "en" })
        .returning();
      await tx
        .insert(messages)
        .values({ tenantId, conversationId: c!.id, role: "user", content: "Can I pay by card?" });
      const [a] = await tx
        .insert(messages)
        .values({
          tenantId,
          conversationId: c!.id,
          role: "assistant",
          content: "No.",
          createdAt: new Date(Date.now() + 1000),
        })
        .returning();
      await tx
        .insert(messageFeedback)
        .values({ messageId: a!.id, tenantId, conversationId: c!.id, rating: "down" });
    });
    expect(await seedTestQuestions(owner, "answers")).toEqual({ added: 1 });
    expect(await seedTestQuestions(owner, "rated_down")).toEqual({ added: 1 });
    const all = await questions();
    expect(all.find((q) => q.origin === "answers")).toMatchObject({
      question: "Do you have parking?",
      expect: { mustContain: ["3 €"], noUnsupportedFigures: true },
    });
    expect(all.find((q) => q.origin === "rated_down")?.question).toBe("Can I pay by card?");
  });
});

describe("editing and CSV", () => {
  it("adds, refuses a twin, edits, exports, imports and deletes", async () => {
    const { id } = await addTestQuestion(owner, {
      question: "Is the salon open on Mondays?",
      sayUnknown: "on",
    });
    await expect(addTestQuestion(owner, { question: "is the salon open on mondays?" })).rejects.toMatchObject(
      {
        code: "invalid_input",
        message: "This question is in the list already.",
      },
    );
    await expect(
      addTestQuestion(owner, { question: " ", citeUrl: "javascript:alert(1)" }),
    ).rejects.toMatchObject({
      details: { fieldErrors: { question: [expect.any(String)], citeUrl: [expect.any(String)] } },
    });
    expect(
      await updateTestQuestion(owner, id, {
        question: "Is the salon open on Mondays?",
        mustNotContain: "yes",
      }),
    ).toEqual({
      changed: true,
    });
    const csv = await exportTestQuestions(viewer);
    expect(csv.split("\r\n")[0]).toBe(
      "question,cite_url,pack,contains,never_contains,says_unknown,no_unsupported_figures",
    );
    expect(csv).toContain("Is the salon open on Mondays?,,,,yes,,");
    await deleteTestQuestion(owner, id);
    // The export read back: the deleted question returns, the others are there already.
    expect(await importTestQuestions(owner, csv)).toEqual({ added: 1 });
    expect((await questions()).find((q) => q.question === "Is the salon open on Mondays?")).toMatchObject({
      origin: "csv",
      expect: { mustNotContain: ["yes"] },
    });
  });
});
