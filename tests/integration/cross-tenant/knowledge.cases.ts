import { randomUUID } from "node:crypto";
import { insertAnswer } from "@/lib/db/queries/knowledge-answers";
import { claimPages } from "@/lib/db/queries/knowledge-pages";
import { saveWebsiteSource } from "@/lib/db/queries/knowledge-sources";
import { insertUpload } from "@/lib/db/queries/knowledge-uploads";
import type { MatrixCases, Side, World } from "./harness";

// Knowledge: both tenants get a website source, a page, an uploaded document and a curated answer, so "A's slug with B's ids" names
// real rows of B. The Knowledge page itself takes only [tenant] and is probed by the matrix on its own.

const T = "src/app/(admin)/admin/[tenant]/knowledge";

async function seed(w: World, s: Side) {
  const tenantId = s.tenant.id;
  await w.db.forTenant(tenantId, async (tx) => {
    const source = await saveWebsiteSource(tx, tenantId, {
      startUrl: `https://${s.tenant.slug}.example`,
      sitemapUrl: null,
      includePatterns: [],
      excludePatterns: [],
      pageCap: 10,
      schedule: "off",
      nextSyncAt: null,
    });
    const [page] = await claimPages(tx, {
      tenantId,
      sourceId: source.id,
      runId: randomUUID(),
      urls: [{ url: `https://${s.tenant.slug}.example/returns`, depth: 0 }],
      max: 1,
    });
    const answer = await insertAnswer(tx, {
      tenantId,
      questions: ["Do you have parking?"],
      answer: `Parking at ${s.tenant.slug}`,
      lang: "en",
      createdBy: null,
    });
    const upload = await insertUpload(tx, {
      tenantId,
      fileName: "menu.txt",
      contentType: "text/plain",
      bytes: new TextEncoder().encode(`The menu of ${s.tenant.slug}`),
    });
    s.extra.knowledgePageId = page!.id;
    s.extra.knowledgeDocumentId = upload.sourceId;
    s.extra.knowledgeAnswerId = answer.id;
  });
}

export const cases: MatrixCases = {
  async setup(w) {
    await seed(w, w.a);
    await seed(w, w.b);
  },
  actions: {
    [`${T}/actions.ts#resyncAction`]: { kind: "tenant", form: () => ({}) },
    [`${T}/actions.ts#excludePageAction`]: {
      kind: "tenant",
      form: (s) => ({ pageId: s.extra.knowledgePageId!, excluded: "true" }),
    },
    [`${T}/actions.ts#addAnswerAction`]: {
      kind: "tenant",
      form: () => ({ questions: "Forged question?", answer: "Forged answer", lang: "en" }),
    },
    [`${T}/actions.ts#updateAnswerAction`]: {
      kind: "tenant",
      form: (s) => ({
        answerId: s.extra.knowledgeAnswerId!,
        questions: "Forged question?",
        answer: "Forged answer",
        lang: "en",
      }),
    },
    [`${T}/actions.ts#deleteDocumentAction`]: {
      kind: "tenant",
      form: (s) => ({ documentId: s.extra.knowledgeDocumentId! }),
    },
    [`${T}/actions.ts#deleteAnswerAction`]: {
      kind: "tenant",
      form: (s) => ({ answerId: s.extra.knowledgeAnswerId! }),
    },
  },
};
