import { insertTestQuestions, insertTestResult, requestTestRun } from "@/lib/db/queries/test-questions";
import type { MatrixCases, Side, World } from "./harness";

// Test questions (issue 42): both tenants get a question and a run with its result, so "A's slug with B's
// ids" names real rows of B.

const T = "src/app/(admin)/admin/[tenant]/tests";

async function seed(w: World, s: Side) {
  const tenantId = s.tenant.id;
  await w.db.forTenant(tenantId, async (tx) => {
    const [q] = await insertTestQuestions(tx, tenantId, [
      { question: `Parking at ${s.tenant.slug}?`, expect: { mustContain: ["free"] }, origin: "manual" },
    ]);
    const runId = (await requestTestRun(tx, tenantId, "manual", 0))!;
    await insertTestResult(tx, {
      tenantId,
      runId,
      questionId: q!.id,
      question: q!.question,
      pass: true,
      reasons: [],
      answer: `Parking is free at ${s.tenant.slug}`,
      citations: [],
      packs: [],
      changes: [],
      wasPass: null,
      tokens: 0,
    });
    s.extra.testQuestionId = q!.id;
    s.extra.testRunId = runId;
  });
}

const fields = { question: "Forged question?", mustContain: "forged", sayUnknown: "on" };

export const cases: MatrixCases = {
  async setup(w) {
    await seed(w, w.a);
    await seed(w, w.b);
  },
  actions: {
    [`${T}/actions.ts#addTestQuestionAction`]: { kind: "tenant", form: () => fields },
    [`${T}/actions.ts#updateTestQuestionAction`]: {
      kind: "tenant",
      form: (s) => ({ questionId: s.extra.testQuestionId!, ...fields }),
    },
    [`${T}/actions.ts#deleteTestQuestionAction`]: {
      kind: "tenant",
      form: (s) => ({ questionId: s.extra.testQuestionId! }),
    },
    [`${T}/actions.ts#seedTestQuestionsAction`]: { kind: "tenant", form: () => ({ from: "site" }) },
    [`${T}/actions.ts#importTestQuestionsAction`]: {
      kind: "tenant",
      form: () => ({ csv: "question,contains\r\nForged import?,forged\r\n" }),
    },
    [`${T}/actions.ts#runTestQuestionsAction`]: { kind: "tenant", form: () => ({}) },
  },
  pages: {
    [`${T}/runs/[id]/page.tsx`]: {
      params: (w) => [
        { tenant: w.b.tenant.slug, id: w.b.extra.testRunId! },
        { tenant: w.a.tenant.slug, id: w.b.extra.testRunId! },
      ],
    },
  },
};
