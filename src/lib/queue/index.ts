import "server-only";
import PgBoss from "pg-boss";
import type { DbHandle, Tx } from "../db/client";
import { grantQueueInsert, poolExecutor, txExecutor } from "../db/job-sql";
import { log } from "../log";
import { processSlot } from "../process-slot";

// The durable job queue: pg-boss on the platform's own database (Postgres or the embedded PGlite, both
// reached through the same `pg` pool). Jobs are rows, so they survive a restart; workers claim them with
// SELECT … FOR UPDATE SKIP LOCKED, so with several instances each job runs once; failed jobs come back
// after an exponential backoff chosen per queue. pg-boss polls rather than LISTENs, which suits the embedded
// database's wire bridge (it does not route notifications).
//
// Why pg-boss 10.4 and not graphile-worker: pg-boss 10 supports Node >= 20 (11+ needs 22), its retry delay,
// limit and backoff are settings per queue (graphile-worker's backoff is a fixed exp(attempts) in SQL, which
// tests could only speed up by editing its tables), and `send` accepts the caller's transaction.

export const QUEUE_SCHEMA = "pgboss";

/** Retry policy of one queue; pg-boss waits about retryDelay × 2^n (with jitter) before retry n. */
export type QueuePolicy = {
  retryLimit: number;
  retryDelaySeconds: number;
  /** How long one run may take before pg-boss counts it failed (a process that died mid-job). */
  expireInSeconds: number;
};

export type QueueJob<T> = { id: string; data: T; retryCount: number; retryLimit: number };

export type QueueWorker<T = unknown> = {
  name: string;
  policy: QueuePolicy;
  /** Jobs fetched per poll and run concurrently (default 1). */
  batchSize?: number;
  /** Throwing fails this attempt; pg-boss retries it until retryLimit. */
  handler: (job: QueueJob<T>) => Promise<void>;
};

export type QueueOptions = {
  workers: QueueWorker[];
  /** Tests poll faster; production keeps pg-boss's two seconds. */
  pollingIntervalSeconds?: number;
  /** Policies may be overridden (tests shorten the backoff). */
  policies?: Record<string, Partial<QueuePolicy>>;
};

/** `startAfterSeconds`: the job waits that long before a worker may take it (0 or absent: at once). */
export type SendOptions = { startAfterSeconds?: number };

export type JobQueue = {
  /** Enqueues inside the caller's transaction: the job exists only if that transaction commits. */
  sendIn(tx: Tx, name: string, data: object, opts?: SendOptions): Promise<string>;
  send(name: string, data: object): Promise<string>;
  stop(): Promise<void>;
};

function bossFor(db: DbHandle, pollingIntervalSeconds?: number): PgBoss {
  return new PgBoss({
    db: poolExecutor(db),
    schema: QUEUE_SCHEMA,
    // Maintenance (expiring stuck jobs, archiving) runs in every instance; pg-boss serialises it itself.
    maintenanceIntervalSeconds: 60,
    // Cron scheduling is not used (the quiet-period sweep is a plain job), so its clock monitor stays off.
    schedule: false,
    ...(pollingIntervalSeconds ? { pollingIntervalSeconds } : {}),
  });
}

async function sendWith(
  boss: PgBoss,
  name: string,
  data: object,
  db?: PgBoss.Db,
  opts: SendOptions = {},
): Promise<string> {
  const id = await boss.send(name, data, {
    ...(db ? { db } : {}),
    // A time, not a number of seconds: pg-boss binds the value in three places, which the transaction's
    // executor numbers apart, and Postgres then types one of them as a timestamp.
    ...(opts.startAfterSeconds ? { startAfter: new Date(Date.now() + opts.startAfterSeconds * 1000) } : {}),
  });
  // pg-boss inserts nothing (and answers null) for a queue it does not know; never let that pass silently.
  if (!id) throw new Error(`the job queue "${name}" does not exist; was startQueue called?`);
  return id;
}

// Any fixed number works, as long as every instance uses the same one (the migrations use 4_242_001).
const QUEUE_INSTALL_LOCK = 4_242_002;

/**
 * Runs `fn` while holding a Postgres advisory lock on a connection of its own. pg-boss's first start creates
 * its schema without a lock of its own, so two instances starting together on a fresh database collided on
 * CREATE SCHEMA ("duplicate key … pg_namespace_nspname_index", seen in tests/e2e/scaling.spec.ts); with the
 * lock, the second waits, then finds everything installed.
 */
async function underInstallLock<T>(db: DbHandle, fn: () => Promise<T>): Promise<T> {
  const client = await db.raw.pool.connect();
  try {
    await client.query("select pg_advisory_lock($1)", [QUEUE_INSTALL_LOCK]);
    try {
      return await fn();
    } finally {
      await client.query("select pg_advisory_unlock($1)", [QUEUE_INSTALL_LOCK]);
    }
  } finally {
    client.release();
  }
}

/** Installs the queue's schema and queues, and starts the given workers. */
export async function startQueue(db: DbHandle, opts: QueueOptions): Promise<JobQueue> {
  const boss = bossFor(db, opts.pollingIntervalSeconds);
  boss.on("error", (err) => log().warn({ err: { message: err.message } }, "job queue error"));
  const queueOf = (w: QueueWorker) => {
    const p = { ...w.policy, ...opts.policies?.[w.name] };
    return {
      name: w.name,
      retryLimit: p.retryLimit,
      retryDelay: p.retryDelaySeconds,
      retryBackoff: true,
      expireInSeconds: p.expireInSeconds,
    };
  };
  await underInstallLock(db, async () => {
    await boss.start();
    await grantQueueInsert(db, QUEUE_SCHEMA);
    for (const w of opts.workers) {
      await boss.createQueue(w.name, queueOf(w));
      await boss.updateQueue(w.name, queueOf(w)); // a changed policy applies to jobs enqueued from now on
    }
  });
  for (const w of opts.workers) {
    const batchSize = w.batchSize ?? 1;
    // pg-boss polls once per interval per worker, so jobs are fetched in batches and run side by side; each
    // job's failure is reported on its own (a failed job then goes back for its retry), and pg-boss marks the
    // rest complete when the batch resolves (its completion only touches jobs still active).
    await boss.work<object>(w.name, { includeMetadata: true, batchSize }, async (jobs) => {
      const outcomes = await Promise.allSettled(
        jobs.map((job) =>
          w.handler({ id: job.id, data: job.data, retryCount: job.retryCount, retryLimit: job.retryLimit }),
        ),
      );
      for (const [i, outcome] of outcomes.entries()) {
        if (outcome.status === "fulfilled") continue;
        const message = outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason);
        await boss.fail(w.name, jobs[i]!.id, { message });
      }
    });
  }
  let stopped = false;
  return {
    sendIn: (tx, name, data, opts) => sendWith(boss, name, data, txExecutor(tx), opts),
    send: (name, data) => sendWith(boss, name, data),
    async stop() {
      if (stopped) return;
      stopped = true;
      // Graceful: running jobs finish (or are failed back to the queue for a retry) before the pool closes.
      await boss.stop({ graceful: true, close: false, wait: true, timeout: 10_000 });
    },
  };
}

// ---- the process's queue ----------------------------------------------------------------------------------

const queue = processSlot<Promise<JobQueue>>("Queue");
/** Called by scripts/serve.mjs on SIGTERM before the database closes. */
const queueStop = processSlot<() => Promise<void>>("QueueStop");

/** Starts the process's queue once (boot); later calls return the same one. */
export function startProcessQueue(db: DbHandle, opts: QueueOptions): Promise<JobQueue> {
  queueStop.set(stopProcessQueue);
  return queue.use(() => startQueue(db, opts));
}

/** The process's queue, or null before boot started it (scripts, some tests). */
export function processQueue(): Promise<JobQueue> | null {
  return queue.get() ?? null;
}

export async function stopProcessQueue(): Promise<void> {
  const q = queue.get();
  queue.set(undefined);
  if (q) await (await q).stop();
}

/** Replaces the process's queue (tests that start one themselves). */
export function setProcessQueue(q: JobQueue | null): void {
  queue.set(q ? Promise.resolve(q) : undefined);
}
