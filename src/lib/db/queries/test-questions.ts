import "server-only";
import { and, asc, desc, eq, sql } from "drizzle-orm";
import { type Db, rowsOf, type TenantTx } from "../client";
import {
  type TestExpect,
  type TestQuestionOrigin,
  type TestRunTrigger,
  testQuestions,
  testResults,
  testRuns,
} from "../schema";

// Test questions, their runs and results (drizzle/0049). Tenant transactions only, but for the sweep's list of
// runs that are due, which reads across businesses as the knowledge schedule does.

export type TestQuestionRow = typeof testQuestions.$inferSelect;
export type TestRunRow = typeof testRuns.$inferSelect;
export type TestResultRow = typeof testResults.$inferSelect;

export async function listTestQuestions(tx: TenantTx): Promise<TestQuestionRow[]> {
  return tx.select().from(testQuestions).orderBy(asc(testQuestions.createdAt), asc(testQuestions.id));
}

export async function countTestQuestions(tx: TenantTx): Promise<number> {
  const [row] = await tx.select({ n: sql<number>`count(*)::int` }).from(testQuestions);
  return row?.n ?? 0;
}

export async function getTestQuestion(tx: TenantTx, id: string): Promise<TestQuestionRow | null> {
  const [row] = await tx.select().from(testQuestions).where(eq(testQuestions.id, id));
  return row ?? null;
}

/** Inserts the questions not there yet (the same wording, case aside, is the same question); answers the new rows. */
export async function insertTestQuestions(
  tx: TenantTx,
  tenantId: string,
  rows: { question: string; expect: TestExpect; origin: TestQuestionOrigin }[],
): Promise<TestQuestionRow[]> {
  if (rows.length === 0) return [];
  return tx
    .insert(testQuestions)
    .values(rows.map((r) => ({ ...r, tenantId })))
    .onConflictDoNothing()
    .returning();
}

export async function updateTestQuestion(
  tx: TenantTx,
  id: string,
  v: { question: string; expect: TestExpect },
): Promise<TestQuestionRow | null> {
  const [row] = await tx
    .update(testQuestions)
    .set({ ...v, updatedAt: sql`now()` })
    .where(eq(testQuestions.id, id))
    .returning();
  return row ?? null;
}

export async function deleteTestQuestion(tx: TenantTx, id: string): Promise<TestQuestionRow | null> {
  const [row] = await tx.delete(testQuestions).where(eq(testQuestions.id, id)).returning();
  return row ?? null;
}

/**
 * Asks for a run: the business's one waiting run takes this trigger too (so a burst of changes is one run),
 * and starts no earlier than `delaySeconds` from now; Run now (0) brings a waiting run forward. A change of
 * knowledge or settings asks only when the business has test questions. Answers the waiting run's id, or null.
 */
export async function requestTestRun(
  tx: TenantTx,
  tenantId: string,
  trigger: TestRunTrigger,
  delaySeconds: number,
): Promise<string | null> {
  const at = sql`now() + make_interval(secs => ${delaySeconds})`;
  const rows = await rowsOf<{ id: string }>(
    tx,
    sql`insert into test_runs (tenant_id, status, triggers, start_after)
        select ${tenantId}, 'pending', array[${trigger}]::text[], ${at}
        where ${trigger} = 'manual' or exists (select 1 from test_questions q where q.tenant_id = ${tenantId})
        on conflict (tenant_id) where status = 'pending' do update set
          triggers = case when ${trigger} = any(test_runs.triggers) then test_runs.triggers
                          else test_runs.triggers || array[${trigger}]::text[] end,
          start_after = ${delaySeconds === 0 ? sql`now()` : sql`greatest(test_runs.start_after, ${at})`}
        returning id`,
  );
  return rows[0]?.id ?? null;
}

/** Waiting runs whose time has come, of active businesses whose knowledge is not mid-sync. */
export async function listDueTestRuns(db: Db, limit = 20): Promise<{ tenantId: string; id: string }[]> {
  return rowsOf<{ tenantId: string; id: string }>(
    db,
    sql`select r.tenant_id as "tenantId", r.id from test_runs r
        join tenants t on t.id = r.tenant_id and t.status = 'active'
        where r.status = 'pending' and r.start_after <= now()
          and not exists (select 1 from test_runs x where x.tenant_id = r.tenant_id and x.status = 'running')
          and not exists (select 1 from knowledge_sources s where s.tenant_id = r.tenant_id
                          and s.sync_state <> 'idle' and 'knowledge' = any(r.triggers))
        order by r.start_after limit ${limit}`,
  );
}

/**
 * Moves a waiting run to running, unless the business already has one running (then null: it waits for the
 * next sweep). The partial unique index decides between two instances; the loser's statement affects no row.
 */
export async function startTestRun(
  tx: TenantTx,
  id: string,
  v: { mode: "model" | "retrieval"; total: number; tokenCap: number },
): Promise<TestRunRow | null> {
  const [row] = await tx
    .update(testRuns)
    .set({ status: "running", startedAt: sql`now()`, ...v })
    .where(
      and(
        eq(testRuns.id, id),
        eq(testRuns.status, "pending"),
        sql`not exists (select 1 from test_runs x where x.tenant_id = ${testRuns.tenantId} and x.status = 'running')`,
      ),
    )
    .returning();
  return row ?? null;
}

export async function getTestRun(tx: TenantTx, id: string): Promise<TestRunRow | null> {
  const [row] = await tx.select().from(testRuns).where(eq(testRuns.id, id));
  return row ?? null;
}

/**
 * Takes the run's lease for a new job when nobody holds it: answers the attempt number that names this
 * runner, or null (another runner holds it, or the run is over).
 */
export async function takeTestRunLease(tx: TenantTx, id: string, seconds: number): Promise<number | null> {
  const rows = await rowsOf<{ attempts: number }>(
    tx,
    sql`update test_runs set lease_until = now() + make_interval(secs => ${seconds}), attempts = attempts + 1
        where id = ${id} and status = 'running' and (lease_until is null or lease_until < now())
        returning attempts`,
  );
  return rows[0]?.attempts ?? null;
}

/** Renews the lease for the runner of that attempt; false when another runner took the run over. */
export async function renewTestRunLease(
  tx: TenantTx,
  id: string,
  attempt: number,
  seconds: number,
): Promise<boolean> {
  const rows = await rowsOf<{ id: string }>(
    tx,
    sql`update test_runs set lease_until = now() + make_interval(secs => ${seconds})
        where id = ${id} and status = 'running' and attempts = ${attempt}
        returning id`,
  );
  return rows.length > 0;
}

/** Running runs whose runner is gone (its lease ran out): the sweep gives each a new job. */
export async function listLapsedTestRuns(
  db: Db,
  limit = 20,
): Promise<{ tenantId: string; id: string; attempts: number }[]> {
  return rowsOf<{ tenantId: string; id: string; attempts: number }>(
    db,
    sql`select r.tenant_id as "tenantId", r.id, r.attempts from test_runs r
        where r.status = 'running' and r.lease_until < now()
        order by r.lease_until limit ${limit}`,
  );
}

export async function listTestRuns(tx: TenantTx, limit = 20): Promise<TestRunRow[]> {
  return tx.select().from(testRuns).orderBy(desc(testRuns.createdAt)).limit(limit);
}

export async function resultsOfRun(tx: TenantTx, runId: string): Promise<TestResultRow[]> {
  return tx
    .select()
    .from(testResults)
    .where(eq(testResults.runId, runId))
    .orderBy(asc(testResults.createdAt), asc(testResults.id));
}

/** Each question's result in the latest finished run before this one that answered it. */
export async function previousResults(tx: TenantTx, runId: string): Promise<Map<string, TestResultRow>> {
  const rows = await rowsOf<{ id: string }>(
    tx,
    sql`select distinct on (r.question_id) r.id from test_results r
        join test_runs run on run.id = r.run_id and run.status = 'done'
        where r.question_id is not null and r.run_id <> ${runId}
        order by r.question_id, run.created_at desc`,
  );
  if (rows.length === 0) return new Map();
  const found = await tx
    .select()
    .from(testResults)
    .where(
      sql`${testResults.id} in (${sql.join(
        rows.map((r) => sql`${r.id}`),
        sql`, `,
      )})`,
    );
  return new Map(found.map((r) => [r.questionId!, r]));
}

export async function insertTestResult(
  tx: TenantTx,
  v: Omit<typeof testResults.$inferInsert, "id" | "createdAt">,
): Promise<boolean> {
  const rows = await tx.insert(testResults).values(v).onConflictDoNothing().returning({ id: testResults.id });
  return rows.length > 0;
}

/** Adds a question's tokens to the run as it goes, so a resumed run knows what is left of its cap. */
export async function addRunTokens(tx: TenantTx, runId: string, tokens: number): Promise<void> {
  await tx
    .update(testRuns)
    .set({ tokens: sql`${testRuns.tokens} + ${tokens}` })
    .where(eq(testRuns.id, runId));
}

export async function finishTestRun(
  tx: TenantTx,
  runId: string,
  v: { status: "done" | "failed"; capped?: boolean; error?: string | null },
): Promise<TestRunRow | null> {
  const [row] = await tx
    .update(testRuns)
    .set({
      status: v.status,
      finishedAt: sql`now()`,
      capped: v.capped ?? false,
      error: v.error ?? null,
      passed: sql`(select count(*)::int from test_results r where r.run_id = ${runId} and r.pass)`,
      failed: sql`(select count(*)::int from test_results r where r.run_id = ${runId} and not r.pass)`,
      changed: sql`(select count(*)::int from test_results r where r.run_id = ${runId} and cardinality(r.changes) > 0)`,
      nowFailing: sql`(select count(*)::int from test_results r where r.run_id = ${runId} and not r.pass and r.was_pass)`,
    })
    .where(and(eq(testRuns.id, runId), eq(testRuns.status, "running")))
    .returning();
  return row ?? null;
}

/** How long an automatic run waits after the last change, so a burst of changes is one run. */
export const AUTO_TEST_RUN_DELAY_SECONDS = 60;

/**
 * In the transaction of a change that can change answers (a sync that changed a page, the bot's prompt or
 * model, a pack or its settings): asks for the business's debounced automatic run, if it has test questions.
 */
export async function requestAutoTestRun(
  tx: TenantTx,
  tenantId: string,
  trigger: TestRunTrigger,
): Promise<void> {
  await requestTestRun(tx, tenantId, trigger, AUTO_TEST_RUN_DELAY_SECONDS);
}

/** Each question's latest result, of whichever run answered it last (the list shows it beside the question). */
export async function latestResults(tx: TenantTx): Promise<Map<string, TestResultRow>> {
  const rows = await tx
    .selectDistinctOn([testResults.questionId])
    .from(testResults)
    .where(sql`${testResults.questionId} is not null`)
    .orderBy(testResults.questionId, desc(testResults.createdAt));
  return new Map(rows.map((r) => [r.questionId!, r]));
}

/** The business's waiting or running run, if any. */
export async function currentTestRun(tx: TenantTx): Promise<TestRunRow | null> {
  const [row] = await tx
    .select()
    .from(testRuns)
    .where(sql`${testRuns.status} in ('pending', 'running')`)
    .orderBy(desc(testRuns.status))
    .limit(1);
  return row ?? null;
}
