import "server-only";
import type { DbHandle } from "../db/client";
import {
  type JobQueue,
  type QueueOptions,
  type QueuePolicy,
  type QueueWorker,
  setProcessQueue,
  startQueue,
} from "../queue";
import { defaultWebhookPoster } from "../security/webhook-post";
import { type DeliverDeps, deliverWebhook } from "./deliver";
import { WEBHOOK_DELIVERY_QUEUE } from "./events";
import { mailDisabledNotice } from "./notice";
import type { DeliveryJob } from "./publish";

/**
 * Retry n waits between 30 s·2^(n-1) and 30 s·2^n (pg-boss's backoff with jitter), so twelve retries span
 * at least 30 s·(2^12 − 1) ≈ 34 hours: a receiver may be down for more than a day without losing an event.
 */
export const WEBHOOK_DELIVERY_POLICY: QueuePolicy = {
  retryLimit: 12,
  retryDelaySeconds: 30,
  // The guarded fetch gives up after 10 s; a job still active after two minutes belonged to a dead process.
  expireInSeconds: 120,
};

export function webhookWorkers(db: DbHandle, deps: Partial<DeliverDeps> = {}): QueueWorker[] {
  const delivery: QueueWorker<DeliveryJob> = {
    name: WEBHOOK_DELIVERY_QUEUE,
    policy: WEBHOOK_DELIVERY_POLICY,
    // Up to 20 receivers at once per instance and poll: a burst of events drains in seconds, not minutes.
    batchSize: 20,
    handler: (job) =>
      deliverWebhook(db, job, {
        poster: deps.poster ?? defaultWebhookPoster(),
        onDisabled: (notice) => mailDisabledNotice(db, notice),
        ...deps,
      }),
  };
  return [delivery as QueueWorker];
}

export type WebhookQueueOptions = Omit<QueueOptions, "workers"> & { deps?: Partial<DeliverDeps> };

/** A queue instance with the webhook workers (tests start two against one database to play two servers). */
export function startWebhookQueue(db: DbHandle, opts: WebhookQueueOptions = {}): Promise<JobQueue> {
  return startQueue(db, { ...opts, workers: webhookWorkers(db, opts.deps) });
}

/** Makes `q` the queue publishEvent enqueues on in this process (tests). */
export function installWebhookQueue(q: JobQueue | null): void {
  setProcessQueue(q);
}
