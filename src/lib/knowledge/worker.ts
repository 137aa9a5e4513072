import "server-only";
import type { DbHandle } from "@/lib/db/client";
import { listDueSources, takeDueSource } from "@/lib/db/queries/knowledge-sources";
import { log } from "@/lib/log";
import type { JobQueue, QueuePolicy, QueueWorker } from "@/lib/queue";
import {
  type KnowledgeDeps,
  PAGE_QUEUE,
  type PageJob,
  SYNC_QUEUE,
  type SyncJob,
  UPLOAD_QUEUE,
  type UploadJob,
} from "./deps";
import { runPageJob } from "./page-job";
import { nextSyncAt } from "./site";
import { startSyncIn } from "./sync";
import { runUploadJob } from "./upload-job";

// The knowledge jobs on the platform's durable queue. A page job that fails for a passing reason (a timeout,
// HTTP 5xx or 429) is retried with backoff; on its last attempt the failure is recorded on the page instead.

export const SYNC_POLICY: QueuePolicy = { retryLimit: 4, retryDelaySeconds: 30, expireInSeconds: 300 };
// A page job waits for its politeness slot (a few seconds at most per batch) and one fetch of ≤ 15 s.
export const PAGE_POLICY: QueuePolicy = { retryLimit: 3, retryDelaySeconds: 20, expireInSeconds: 180 };

// An upload is read once from the database; a reader that dies mid-file is tried again, then recorded.
export const UPLOAD_POLICY: QueuePolicy = { retryLimit: 2, retryDelaySeconds: 20, expireInSeconds: 180 };

export function knowledgeWorkers(deps: () => Promise<KnowledgeDeps>): QueueWorker[] {
  const sync: QueueWorker<SyncJob> = {
    name: SYNC_QUEUE,
    policy: SYNC_POLICY,
    handler: async (job) => {
      const { runSyncJob } = await import("./sync");
      await runSyncJob(await deps(), job);
    },
  };
  const page: QueueWorker<PageJob> = {
    name: PAGE_QUEUE,
    policy: PAGE_POLICY,
    // Pages of one host share its politeness slots; a batch lets pages of several businesses go side by side.
    batchSize: 4,
    handler: async (job) => runPageJob(await deps(), job),
  };
  const upload: QueueWorker<UploadJob> = {
    name: UPLOAD_QUEUE,
    policy: UPLOAD_POLICY,
    handler: async (job) => runUploadJob(await deps(), job),
  };
  return [sync as QueueWorker, page as QueueWorker, upload as QueueWorker];
}

/**
 * Starts one due source's scheduled run: taking it (next sync moved on by the schedule) and starting its run are
 * one tenant transaction, so a start that fails, or a process that dies half-way, leaves it due as it was,
 * and two instances that both saw it due start it once. Answers whether this call started it.
 */
export async function startDueSync(
  db: DbHandle,
  queue: JobQueue,
  s: { tenantId: string; id: string },
): Promise<boolean> {
  return db.forTenant(s.tenantId, async (tx) => {
    const taken = await takeDueSource(tx, s.id, (schedule) => nextSyncAt(schedule));
    if (!taken) return false;
    await startSyncIn(tx, queue, { tenantId: s.tenantId, sourceId: s.id, actor: null, reason: "schedule" });
    return true;
  });
}

/** The schedule's sweep (daily, weekly): every due source gets one run across all instances. */
export async function startDueSyncs(db: DbHandle, queue: JobQueue): Promise<number> {
  let started = 0;
  for (const s of await listDueSources(db.platform)) {
    try {
      if (await startDueSync(db, queue, s)) started += 1;
    } catch (err) {
      log().warn(
        { err: { message: (err as Error).message }, source: s.id },
        "scheduled knowledge sync failed to start; it stays due for the next sweep",
      );
    }
  }
  return started;
}
