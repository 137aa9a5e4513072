import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "@/lib/db/client";
import { getTenantById } from "@/lib/db/queries/operator";
import type { UploadJob } from "@/lib/knowledge/deps";
import { searchKnowledge } from "@/lib/knowledge/search";
import { runUploadJob } from "@/lib/knowledge/upload-job";
import { deleteDocument, MAX_UPLOAD_BYTES, uploadDocument } from "@/lib/knowledge/uploads";
import { askTestQuestion, loadKnowledgeView } from "@/lib/knowledge/views";
import { requirePack, updatePackSettings } from "@/lib/pack-settings/settings";
import type { QueueJob } from "@/lib/queue";
import { setKnowledgeLimits } from "@/lib/tenants/operator";
import { fieldName, readSubmission } from "@/lib/tools/form-data";
import { ALL_PACKS } from "@/lib/tools/index";
import { citationsFrom } from "@/shared/citations";
import { installTestDb } from "../support/admin-env";
import { makeTenant, makeUser } from "../support/admin-world";
import type { TestDb } from "../support/db";
import { type KnowledgeInstance, startKnowledgeInstance } from "../support/knowledge";
import { writeDocx } from "../support/zip-writer";

// Documents uploaded on the Knowledge page, through the real durable queue and the extraction worker thread:
// Markdown, plain text and DOCX files become passages the search finds and the pack cites by file name (never
// as a link); refusals (too large, an unsupported type, a zip bomb, an unreadable file, the quota) say why;
// another business never finds them; Delete takes the passages away.

let t: TestDb;
let k: KnowledgeInstance;
type Ctx = Parameters<typeof uploadDocument>[0];
let owner: Ctx;
let other: Ctx;

const enc = (s: string) => new TextEncoder().encode(s);

beforeAll(async () => {
  t = await installTestDb();
  k = await startKnowledgeInstance(t.handle, { host: "uploads.invalid", caPem: "" }, { worker: true });
  const a = await makeUser(t.handle, "owner@uploads.test");
  const b = await makeUser(t.handle, "owner@other-uploads.test");
  const ta = await makeTenant(t.handle, "kn-uploads", [[a, "owner"]]);
  const tb = await makeTenant(t.handle, "kn-uploads-b", [[b, "owner"]]);
  const user = (u: typeof a) => ({
    id: u.id,
    email: u.email,
    name: "",
    isOperator: false,
    mustChangePassword: false,
  });
  owner = { db: t.handle, tenant: ta, role: "owner", user: user(a) } as Ctx;
  other = { db: t.handle, tenant: tb, role: "owner", user: user(b) } as Ctx;
}, 60_000);

afterAll(async () => {
  await k?.stop();
  await t?.close();
});

async function settled(ctx: Ctx, id: string) {
  await expect
    .poll(async () => (await loadKnowledgeView(ctx)).uploads.find((u) => u.id === id)?.status, {
      timeout: 60_000,
      interval: 200,
    })
    .toMatch(/^(indexed|failed)$/);
  return (await loadKnowledgeView(ctx)).uploads.find((u) => u.id === id)!;
}

const settledOrNot = async (id: string) => (await loadKnowledgeView(owner)).uploads.find((u) => u.id === id);

const search = (ctx: Ctx, q: string) =>
  searchKnowledge(t.handle, ctx.tenant.id, q, {}).then((r) => r.passages);

describe("uploaded documents", () => {
  it("indexes Markdown, plain text and DOCX files, found by search and cited by name without a link", async () => {
    const md = await uploadDocument(
      owner,
      {
        fileName: "Parking guide.md",
        bytes: enc("# Parking\n\nThe car park behind the roastery is free for two hours.\n"),
      },
      k.queue,
    );
    const txt = await uploadDocument(
      owner,
      {
        fileName: "allergies.txt",
        bytes: enc("Every pastry is baked in a kitchen that also handles walnuts."),
      },
      k.queue,
    );
    const docx = await uploadDocument(
      owner,
      {
        fileName: "groups.docx",
        bytes: new Uint8Array(
          writeDocx([
            { text: "Group bookings", heading: 1 },
            { text: "Parties of twelve or more reserve the upstairs room by telephone." },
          ]),
        ),
      },
      k.queue,
    );
    for (const id of [md.id, txt.id, docx.id])
      expect(await settled(owner, id)).toMatchObject({ status: "indexed", reason: null });
    expect((await search(owner, "is the car park free"))[0]?.text).toContain("free for two hours");
    expect((await search(owner, "walnuts"))[0]?.title).toBe("allergies.txt");
    const groups = await search(owner, "upstairs room for parties");
    expect(groups[0]?.text).toContain("Parties of twelve");
    expect(groups[0]?.headingPath).toBe("Group bookings");

    const test = await askTestQuestion(owner, "is the car park free");
    const passage = JSON.parse(test.modelSees).passages[0];
    expect(passage).toMatchObject({ n: 1, document: "Parking guide.md" });
    expect(passage.url).toBeUndefined();
    // The widget cites the document by its name, without a link: an upload has no public address.
    expect(
      citationsFrom("It is free [1].", [{ packId: "search_knowledge", result: test.modelSees }]),
    ).toEqual([{ n: 1, title: "Parking guide.md" }]);
  });

  it("another business never finds an upload's passage, and cannot delete it", async () => {
    const view = await loadKnowledgeView(owner);
    expect(await search(other, "walnuts")).toEqual([]);
    expect((await loadKnowledgeView(other)).uploads).toEqual([]);
    // The bytes themselves are under row-level security: B's transaction sees none of A's files.
    const files = (tenantId: string) =>
      t.handle.forTenant(tenantId, (tx) =>
        rowsOf<{ n: number }>(tx, sql`select count(*)::int as n from knowledge_files`),
      );
    expect((await files(owner.tenant.id))[0]?.n).toBeGreaterThan(0);
    expect((await files(other.tenant.id))[0]?.n).toBe(0);
    await expect(deleteDocument(other, view.uploads[0]!.id)).rejects.toMatchObject({ code: "not_found" });
    expect((await loadKnowledgeView(owner)).uploads).toHaveLength(view.uploads.length);
  });

  it("refuses a file over 20 MB and a type it cannot read, with the reason on the file field", async () => {
    const before = (await loadKnowledgeView(owner)).uploads.length;
    await expect(
      uploadDocument(owner, { fileName: "big.txt", bytes: new Uint8Array(MAX_UPLOAD_BYTES + 1) }, k.queue),
    ).rejects.toMatchObject({
      code: "payload_too_large",
      details: { fieldErrors: { file: ["The file is larger than 20 MB."] } },
    });
    await expect(
      uploadDocument(owner, { fileName: "setup.exe", bytes: enc("MZ") }, k.queue),
    ).rejects.toMatchObject({
      code: "invalid_input",
      details: { fieldErrors: { file: [expect.any(String)] } },
    });
    expect((await loadKnowledgeView(owner)).uploads).toHaveLength(before);
  });

  it("records why a document could not be read: a zip bomb, a file that is not what its name says", async () => {
    // Twenty-six copies of 4 MB of zeros: more than the 100 MB a DOCX may unpack to, in a file of some KB.
    const zeros = Buffer.alloc(4 * 1024 * 1024);
    const parts = Array.from({ length: 26 }, (_, i) => ({ name: `word/media/${i}.bin`, data: zeros }));
    const big = writeDocx([{ text: "x" }], parts);
    expect(big.length).toBeLessThan(1024 * 1024);
    const a = await uploadDocument(owner, { fileName: "bomb.docx", bytes: new Uint8Array(big) }, k.queue);
    const b = await uploadDocument(owner, { fileName: "fake.pdf", bytes: enc("not a pdf at all") }, k.queue);
    expect((await settled(owner, a.id)).reason).toMatch(/^zip_bomb: /);
    expect((await settled(owner, b.id)).reason).toMatch(/^unreadable: /);
    expect((await settled(owner, b.id)).chunks).toBe(0);
  });

  it("a document whose job fails on its last attempt is shown as failed, not processing for ever", async () => {
    const doc = await uploadDocument(
      owner,
      { fileName: "late.txt", bytes: enc("Late text.") },
      {
        ...k.queue,
        sendIn: async () => "held back",
      },
    );
    const page = (await loadKnowledgeView(owner)).uploads.find((u) => u.id === doc.id)!;
    const broken = { ...k.deps, extract: () => Promise.reject(new Error("reader crashed")) };
    const job = (retryCount: number): QueueJob<UploadJob> => ({
      id: "j",
      data: { tenantId: owner.tenant.id, sourceId: doc.id, pageId: page.pageId! },
      retryCount,
      retryLimit: 2,
    });
    await expect(runUploadJob(broken, job(0))).rejects.toThrow("reader crashed");
    expect((await settledOrNot(doc.id))?.status).toBe("pending");
    await runUploadJob(broken, job(2));
    expect((await settledOrNot(doc.id))?.reason).toMatch(/^unreadable: /);
    await deleteDocument(owner, doc.id);
  });

  it("keeps the business within the quota the operator sets, and the operator's page cap bounds the site's", async () => {
    const operator = {
      db: t.handle,
      user: { id: owner.user.id, email: "op@uploads.test", isOperator: true },
    };
    const op = operator as unknown as Parameters<typeof setKnowledgeLimits>[0];
    await setKnowledgeLimits(op, owner.tenant.id, { uploadQuotaMb: 0, pageCap: 20 });
    await expect(
      uploadDocument(owner, { fileName: "more.txt", bytes: enc("Opening hours: nine to five.") }, k.queue),
    ).rejects.toMatchObject({
      code: "payload_too_large",
      details: { fieldErrors: { file: [expect.stringMatching(/Delete a document first/)] } },
    });
    const tenant = (await getTenantById(t.handle.platform, owner.tenant.id))!;
    const fresh = { ...owner, tenant } as Ctx;
    const fd = new FormData();
    fd.set(fieldName("siteUrl"), "https://uploads.example/sitemap.xml");
    fd.set(fieldName("pageCap"), "50");
    fd.set(fieldName("schedule"), "off");
    const pack = requirePack(ALL_PACKS, "search_knowledge");
    await updatePackSettings(
      fresh,
      { packId: "search_knowledge", enabled: false, ...readSubmission(pack.configFields, fd) },
      { allowHosts: ["uploads.example"] },
    );
    expect((await loadKnowledgeView(fresh)).source?.pageCap).toBe(20);
    await setKnowledgeLimits(op, owner.tenant.id, { uploadQuotaMb: 100, pageCap: 5000 });
    await uploadDocument(owner, { fileName: "hours.txt", bytes: enc("Open nine to five.") }, k.queue);
  });

  it("Delete removes the document's passages and its file, audited", async () => {
    const doc = (await loadKnowledgeView(owner)).uploads.find((u) => u.fileName === "allergies.txt")!;
    expect(doc.chunks).toBeGreaterThan(0);
    await deleteDocument(owner, doc.id);
    expect(await search(owner, "walnuts")).toEqual([]);
    const left = await rowsOf<{ n: number }>(
      t.handle.platform,
      sql`select (select count(*) from knowledge_chunks where source_id = ${doc.id})::int
             + (select count(*) from knowledge_files where source_id = ${doc.id})::int as n`,
    );
    expect(left[0]?.n).toBe(0);
    const audit = await rowsOf<{ action: string }>(
      t.handle.platform,
      sql`select action from audit_log where target = ${doc.id} order by created_at`,
    );
    expect(audit.map((r) => r.action)).toEqual(["knowledge.document_uploaded", "knowledge.document_deleted"]);
  });
});
