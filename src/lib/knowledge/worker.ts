import "server-only";
import type { DbHandle } from "@/lib/db/client";
import { takeDueSources } from "@/lib/db/queries/knowledge-sources";
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
import { startSync } from "./sync";
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

/** The schedule (daily, weekly): due sources get a run; each is taken by one instance only. */
export async function startDueSyncs(db: DbHandle, queue: JobQueue): Promise<number> {
  const due = await takeDueSources(db.platform);
  for (const s of due) {
    try {
      await startSync(db, queue, { tenantId: s.tenantId, sourceId: s.id, actor: null, reason: "schedule" });
    } catch (err) {
      log().warn(
        { err: { message: (err as Error).message }, source: s.id },
        "scheduled knowledge sync failed to start",
      );
    }
  }
  return due.length;
}
