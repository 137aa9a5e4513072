import "server-only";
import type { TenantContext } from "@/lib/auth/access";
import { modelStatus } from "@/lib/chat/model";
import { listPackConfigs } from "@/lib/db/queries/packs";
import { indexedPagesForTests } from "@/lib/db/queries/test-question-sources";
import {
  currentTestRun,
  getTestRun,
  latestResults,
  listTestQuestions,
  listTestRuns,
  resultsOfRun,
  type TestQuestionRow,
  type TestResultRow,
  type TestRunRow,
} from "@/lib/db/queries/test-questions";
import { env } from "@/lib/env";
import { ALL_PACKS } from "@/lib/tools/index";
import { isUuid } from "@/shared/parse";

// What the Test questions page and a run's page show. Read-only: viewers see everything here.

export type TestQuestionsView = {
  questions: (TestQuestionRow & { latest: TestResultRow | null })[];
  /** Pages a question may ask to be cited (indexed web pages). */
  pages: { url: string; title: string }[];
  /** Packs a question may ask to be used: the business's switched-on packs. */
  packs: { id: string; label: string }[];
  runs: TestRunRow[];
  current: TestRunRow | null;
  /** Without a model, runs check retrieval alone. */
  modelConfigured: boolean;
};

export async function loadTestQuestionsView(ctx: TenantContext): Promise<TestQuestionsView> {
  return ctx.db.forTenant(ctx.tenant.id, async (tx) => {
    const latest = await latestResults(tx);
    const enabled = new Set((await listPackConfigs(tx)).filter((p) => p.enabled).map((p) => p.packId));
    return {
      questions: (await listTestQuestions(tx)).map((q) => ({ ...q, latest: latest.get(q.id) ?? null })),
      pages: (await indexedPagesForTests(tx)).map((p) => ({ url: p.url, title: p.title })),
      packs: ALL_PACKS.filter((p) => enabled.has(p.id)).map((p) => ({ id: p.id, label: p.label })),
      runs: await listTestRuns(tx, 10),
      current: await currentTestRun(tx),
      modelConfigured: modelStatus(env()).configured,
    };
  });
}

export type TestRunView = { run: TestRunRow; results: TestResultRow[] };

/** A run and its results, what broke first; null for a run that does not exist (or is another business's). */
export async function loadTestRunView(ctx: TenantContext, runId: string): Promise<TestRunView | null> {
  if (!isUuid(runId)) return null;
  return ctx.db.forTenant(ctx.tenant.id, async (tx) => {
    const run = await getTestRun(tx, runId);
    if (!run) return null;
    const results = await resultsOfRun(tx, runId);
    // What broke first, then what changed, then the rest, as the headline reads.
    const rank = (r: TestResultRow) => (!r.pass && r.wasPass ? 0 : r.changes.length ? 1 : !r.pass ? 2 : 3);
    return { run, results: results.sort((a, b) => rank(a) - rank(b)) };
  });
}

export type { TestRunTrigger } from "@/lib/db/schema";
