import "server-only";
import { assertRole, auditedTx, type TenantContext } from "@/lib/auth/access";
import { modelStatus } from "@/lib/chat/model";
import type { DbHandle, TenantTx } from "@/lib/db/client";
import {
  countTestQuestions,
  finishTestRun,
  listDueTestRuns,
  listLapsedTestRuns,
  requestTestRun,
  startTestRun,
} from "@/lib/db/queries/test-questions";
import type { Env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { registerJob } from "@/lib/jobs";
import { log } from "@/lib/log";
import { type JobQueue, processQueue, type QueuePolicy, type QueueWorker } from "@/lib/queue";
import { executeTestRun, type RunDeps } from "./run";

// Runs as durable jobs. A run is asked for (Run now, or a change: ./triggers in the use cases that make the
// change) as a waiting row; it starts when its debounce is over and the business has no run going, by
// becoming `running` and getting its queue job in one transaction. The job answers the questions; a run
// whose runner died is handed to a new job by the same sweep once its lease ran out (./run.ts).

export const TEST_RUN_QUEUE = "test-questions.run";
export type TestRunJob = { tenantId: string; runId: string };

// The run's own lease decides who answers; pg-boss retries only a job whose handler threw (a database outage).
export const TEST_RUN_POLICY: QueuePolicy = { retryLimit: 3, retryDelaySeconds: 30, expireInSeconds: 3600 };

/** A run that died this many times is ended as failed rather than started again. */
const MAX_ATTEMPTS = 5;

async function startIn(tx: TenantTx, queue: JobQueue, env: Env, tenantId: string, runId: string) {
  const run = await startTestRun(tx, runId, {
    mode: modelStatus(env).configured ? "model" : "retrieval",
    total: await countTestQuestions(tx),
    tokenCap: env.MICHI_TEST_RUN_MAX_TOKENS,
  });
  if (run) await queue.sendIn(tx, TEST_RUN_QUEUE, { tenantId, runId } satisfies TestRunJob);
  return run;
}

/**
 * Run now (admins and owners): the business's waiting run starts at once, or a new one does. While another
 * run is going, this one waits for it and starts after it (never two at once).
 */
export async function runTestQuestionsNow(
  ctx: TenantContext,
  deps: { queue: JobQueue; env: Env },
): Promise<{ runId: string; started: boolean }> {
  assertRole(ctx, "admin");
  return auditedTx(ctx, async (tx, record) => {
    if ((await countTestQuestions(tx)) === 0) {
      throw new AppError("invalid_input", "Add a test question first: there is nothing to run.");
    }
    const runId = (await requestTestRun(tx, ctx.tenant.id, "manual", 0))!;
    const started = !!(await startIn(tx, deps.queue, deps.env, ctx.tenant.id, runId));
    await record("test_run.requested", { target: runId });
    return { runId, started };
  });
}

/** The sweep: waiting runs whose time has come start; running runs whose runner died get a new job. */
export async function sweepTestRuns(db: DbHandle, queue: JobQueue, env: Env): Promise<number> {
  let started = 0;
  for (const r of await listDueTestRuns(db.platform)) {
    try {
      if (await db.forTenant(r.tenantId, (tx) => startIn(tx, queue, env, r.tenantId, r.id))) started += 1;
    } catch (err) {
      // Two instances raced for the one running slot: the loser's run waits for the next sweep.
      log().debug({ err: { message: (err as Error).message }, runId: r.id }, "test run not started");
    }
  }
  for (const r of await listLapsedTestRuns(db.platform)) {
    await db.forTenant(r.tenantId, async (tx) => {
      if (r.attempts >= MAX_ATTEMPTS) {
        await finishTestRun(tx, r.id, {
          status: "failed",
          error: "The run stopped several times before it could finish; the answers it had are kept.",
        });
      } else
        await queue.sendIn(tx, TEST_RUN_QUEUE, { tenantId: r.tenantId, runId: r.id } satisfies TestRunJob);
    });
  }
  return started;
}

export function testRunWorkers(deps: () => RunDeps): QueueWorker[] {
  const worker: QueueWorker<TestRunJob> = {
    name: TEST_RUN_QUEUE,
    policy: TEST_RUN_POLICY,
    handler: (job) => executeTestRun(deps(), job.data.tenantId, job.data.runId),
  };
  return [worker as QueueWorker];
}

/** Boot: the sweep every 15 seconds, on the process queue. */
export function registerTestRunSweep(db: DbHandle, env: Env): void {
  registerJob({
    name: "test-run-sweep",
    everyMs: 15_000,
    run: async () => {
      const q = processQueue();
      if (!q) return;
      try {
        await sweepTestRuns(db, await q, env);
      } catch (err) {
        log().warn({ err: { message: (err as Error).message } }, "test run sweep failed");
      }
    },
  });
}
