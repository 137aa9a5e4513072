import "server-only";
import { modelStatus } from "@/lib/chat/model";
import type { TurnDeps } from "@/lib/chat/run-turn";
import type { DbHandle } from "@/lib/db/client";
import { getOwnTenant, type TenantRow } from "@/lib/db/queries/tenants";
import {
  addRunTokens,
  finishTestRun,
  getTestRun,
  insertTestResult,
  listTestQuestions,
  previousResults,
  renewTestRunLease,
  resultsOfRun,
  type TestQuestionRow,
  type TestResultRow,
  type TestRunRow,
  takeTestRunLease,
} from "@/lib/db/queries/test-questions";
import type { TestChange } from "@/lib/db/schema";
import type { Logger } from "@/lib/log";
import type { KnowledgeSearcher } from "@/lib/tools/knowledge-search";
import type { Citation } from "@/shared/citations";
import { type Asked, askRetrieval, askWithModel } from "./ask";
import { fold, judge } from "./expect";
import { runCompleted } from "./notify";

// One run of a business's test questions, as its durable job runs it. Each question's result is stored in
// its own transaction as soon as it is judged, so a run that a restart interrupted is resumed by the job's
// next delivery from the first question without a result; a question is never asked twice in one run.

export type RunDeps = {
  db: DbHandle;
  turn: TurnDeps;
  /** The knowledge search a run without a model answers from. */
  search: KnowledgeSearcher;
  log: Logger;
};

const urls = (c: Citation[]) =>
  c
    .map((x) => x.url ?? x.title)
    .sort()
    .join("\n");

/** What changed in one answer since the question's previous run: its text, its citations, its verdict. */
export function changesSince(
  prev: Pick<TestResultRow, "answer" | "citations" | "pass"> | undefined,
  now: { answer: string; citations: Citation[]; pass: boolean },
): TestChange[] {
  if (!prev) return [];
  const out: TestChange[] = [];
  if (fold(prev.answer) !== fold(now.answer)) out.push("answer");
  if (urls(prev.citations) !== urls(now.citations)) out.push("citations");
  if (prev.pass !== now.pass) out.push("verdict");
  return out;
}

async function ask(deps: RunDeps, run: TestRunRow, tenant: TenantRow, q: TestQuestionRow): Promise<Asked> {
  return run.mode === "model"
    ? askWithModel(deps.turn, tenant, run.id, q.question)
    : askRetrieval(deps.search, tenant, q.question);
}

/**
 * How long a runner holds its run without renewing: longer than one question can take (a turn's own limits
 * end it well within this), short enough that a run whose process died is picked up again soon.
 */
export const LEASE_SECONDS = 180;

/** Answers and judges every question of the run still without a result, then ends the run. */
export async function executeTestRun(deps: RunDeps, tenantId: string, runId: string): Promise<void> {
  const attempt = await deps.db.forTenant(tenantId, (tx) => takeTestRunLease(tx, runId, LEASE_SECONDS));
  // Another runner has it (a second delivery of the job), or it is over.
  if (attempt === null) return;
  const start = await deps.db.forTenant(tenantId, async (tx) => ({
    run: await getTestRun(tx, runId),
    tenant: await getOwnTenant(tx, tenantId),
    questions: await listTestQuestions(tx),
    done: new Set((await resultsOfRun(tx, runId)).map((r) => r.questionId)),
    previous: await previousResults(tx, runId),
  }));
  const { run, tenant } = start;
  if (!run || !tenant || run.status !== "running") return;
  // A run started with a model that is gone by now (the operator removed it) goes on from the search alone.
  const mode = run.mode === "model" && !modelStatus(deps.turn.env).configured ? "retrieval" : run.mode;
  let spent = run.tokens;
  let capped = false;
  for (const q of start.questions) {
    if (start.done.has(q.id)) continue;
    if (mode === "model" && spent >= run.tokenCap) {
      capped = true;
      break;
    }
    const asked = await ask(deps, { ...run, mode }, tenant, q);
    const verdict = asked.refused
      ? { pass: false, reasons: [`The question could not be asked: ${asked.refused}`] }
      : judge(q.expect, asked.facts);
    const prev = start.previous.get(q.id);
    const result = { answer: asked.facts.answer, citations: asked.facts.citations, pass: verdict.pass };
    spent += asked.tokens;
    const kept = await deps.db.forTenant(tenantId, async (tx) => {
      // A runner that lost its lease (it stalled past it and the sweep handed the run on) records nothing.
      if (!(await renewTestRunLease(tx, runId, attempt, LEASE_SECONDS))) return false;
      const stored = await insertTestResult(tx, {
        tenantId,
        runId,
        questionId: q.id,
        question: q.question,
        pass: verdict.pass,
        reasons: verdict.reasons,
        answer: result.answer,
        citations: result.citations,
        packs: asked.facts.packs,
        changes: changesSince(prev, result),
        wasPass: prev ? prev.pass : null,
        tokens: asked.tokens,
      });
      if (stored && asked.tokens > 0) await addRunTokens(tx, runId, asked.tokens);
      return true;
    });
    if (!kept) return;
  }
  const finished = await deps.db.forTenant(tenantId, async (tx) => {
    const row = await finishTestRun(tx, runId, { status: "done", capped });
    if (row) await runCompleted.events(tx, tenant, row, await resultsOfRun(tx, runId));
    return row;
  });
  if (finished) await runCompleted.mail(deps.db, tenant, finished, deps.log);
}
