import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "@/lib/db/client";
import { claimPages, replacePageChunks, updatePage } from "@/lib/db/queries/knowledge-pages";
import { addCuratedAnswer } from "@/lib/knowledge/answers";
import { resyncNow, setPageExcluded } from "@/lib/knowledge/sources";
import { askTestQuestion, loadKnowledgeView } from "@/lib/knowledge/views";
import { requirePack, updatePackSettings } from "@/lib/pack-settings/settings";
import { type JobQueue, setProcessQueue } from "@/lib/queue";
import { fieldName, readSubmission } from "@/lib/tools/form-data";
import { ALL_PACKS } from "@/lib/tools/index";
import { installTestDb } from "../support/admin-env";
import { makeTenant, makeUser } from "../support/admin-world";
import type { TestDb } from "../support/db";

// The Knowledge use cases as the admin uses them: saving the pack on the Tools page creates the website
// source and starts its first sync; viewers read but cannot change; every change is audited; a curated answer
// wins in the test question, which shows exactly what the model receives.

let t: TestDb;
const sent: { name: string; data: unknown }[] = [];
const queue: JobQueue = {
  sendIn: async (_tx, name, data) => {
    sent.push({ name, data });
    return "job";
  },
  send: async (name, data) => {
    sent.push({ name, data });
    return "job";
  },
  stop: async () => {},
};
type Ctx = Parameters<typeof resyncNow>[0];
let owner: Ctx;
let viewer: Ctx;

beforeAll(async () => {
  t = await installTestDb();
  setProcessQueue(queue);
  const o = await makeUser(t.handle, "owner@knowledge.test");
  const v = await makeUser(t.handle, "viewer@knowledge.test");
  const tenant = await makeTenant(
    t.handle,
    "kn-admin",
    [
      [o, "owner"],
      [v, "viewer"],
    ],
    { siteDomains: ["michi.example"] },
  );
  const user = (u: typeof o) => ({
    id: u.id,
    email: u.email,
    name: "",
    isOperator: false,
    mustChangePassword: false,
  });
  owner = { db: t.handle, tenant, role: "owner", user: user(o) } as Ctx;
  viewer = { db: t.handle, tenant, role: "viewer", user: user(v) } as Ctx;
}, 60_000);

afterAll(async () => {
  setProcessQueue(null);
  await t?.close();
});

async function auditActions() {
  const rows = await rowsOf<{ action: string }>(
    t.handle.platform,
    sql`select action from audit_log order by created_at`,
  );
  return rows.map((r) => r.action);
}

describe("the Knowledge page's use cases", () => {
  it("saving the pack creates the website source and starts its first sync", async () => {
    const fd = new FormData();
    fd.set(fieldName("siteUrl"), "https://fixture.test:8443/sitemap.xml");
    fd.set(fieldName("schedule"), "daily");
    fd.set(fieldName("pageCap"), "50");
    const pack = requirePack(ALL_PACKS, "search_knowledge");
    const r = await updatePackSettings(
      owner,
      { packId: "search_knowledge", enabled: true, ...readSubmission(pack.configFields, fd) },
      { allowHosts: ["fixture.test:8443"] },
    );
    expect(r.changed.length).toBeGreaterThan(0);
    const view = await loadKnowledgeView(owner);
    expect(view.source).toMatchObject({
      sitemapUrl: "https://fixture.test:8443/sitemap.xml",
      pageCap: 50,
      schedule: "daily",
    });
    expect(view.source?.nextSyncAt).toBeInstanceOf(Date);
    expect(sent.map((s) => s.name)).toEqual(["knowledge.sync"]);
    expect(await auditActions()).toContain("knowledge.sync_started");
  });

  it("viewers read the page but cannot re-sync, exclude or write answers", async () => {
    await expect(resyncNow(viewer, queue)).rejects.toMatchObject({ code: "forbidden" });
    await expect(
      addCuratedAnswer(viewer, { questions: ["Parking?"], answer: "Yes", lang: "en" }),
    ).rejects.toMatchObject({ code: "forbidden" });
    expect((await loadKnowledgeView(viewer)).source).not.toBeNull();
  });

  it("Re-sync now and Exclude this page are audited; an excluded page loses its passages", async () => {
    await resyncNow(owner, queue);
    const tenantId = owner.tenant.id;
    const source = (await loadKnowledgeView(owner)).source!;
    const pageId = await t.handle.forTenant(tenantId, async (tx) => {
      const [p] = await claimPages(tx, {
        tenantId,
        sourceId: source.id,
        runId: source.runId!,
        urls: [{ url: "https://fixture.test:8443/parking", depth: 0 }],
        max: 1,
      });
      await updatePage(tx, p!.id, { status: "indexed", title: "Parking", lang: "en" });
      await replacePageChunks(tx, { tenantId, sourceId: source.id, pageId: p!.id }, [
        {
          ord: 0,
          headingPath: "Parking",
          text: "Parking is free behind the shop for two hours.",
          hash: "p0",
          lang: "en",
          words: "Parking is free behind the shop for two hours.",
        },
      ]);
      return p!.id;
    });
    const before = await askTestQuestion(viewer, "is parking free?");
    expect(before.passages[0]?.url).toBe("https://fixture.test:8443/parking");
    expect(JSON.parse(before.modelSees).passages[0].url).toBe("https://fixture.test:8443/parking");
    expect(before.tokens).toBeGreaterThan(0);
    await setPageExcluded(owner, pageId, true);
    const after = await askTestQuestion(owner, "is parking free?");
    expect(after.passages).toEqual([]);
    expect(JSON.parse(after.modelSees).found).toBe(false);
    expect(await auditActions()).toEqual(
      expect.arrayContaining(["knowledge.sync_started", "knowledge.page_excluded"]),
    );
  });

  it("a curated answer that matches wins, reworded or misspelt", async () => {
    const r = await addCuratedAnswer(owner, {
      questions: ["Can I bring my dog?", "Are pets allowed?"],
      answer: "Dogs on a lead are welcome on the terrace.",
      lang: "en",
    });
    expect(r.id).toBeTruthy();
    for (const q of ["are pets allowed", "can i bring my dgo?"]) {
      const test = await askTestQuestion(owner, q);
      expect(test.curated?.answer, q).toBe("Dogs on a lead are welcome on the terrace.");
      expect(JSON.parse(test.modelSees).answer_from_business.answer).toBe(
        "Dogs on a lead are welcome on the terrace.",
      );
    }
    expect((await askTestQuestion(owner, "opening hours on sunday")).curated).toBeNull();
    expect(await auditActions()).toContain("knowledge.answer_added");
  });
});
