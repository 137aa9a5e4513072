import "server-only";
import { OUTBOX_SEND_QUEUE, type SendJob } from "../outbox";
import type { QueuePolicy, QueueWorker } from "../queue";
import { answerContact } from "./answer";
import type { ChannelDeps } from "./deps";
import { CHANNEL_INBOUND_QUEUE, type InboundJob } from "./jobs";
import { sendReplyJob } from "./send";

/**
 * An inbound job is retried when the business's stream slots are all busy or the database failed; a few
 * quick retries, then minutes apart. A job still active after ten minutes belonged to a dead process.
 */
export const CHANNEL_INBOUND_POLICY: QueuePolicy = {
  retryLimit: 8,
  retryDelaySeconds: 5,
  expireInSeconds: 600,
};
/** Sends: retry n after about 10 s·2^n, eight retries span about 40 minutes of a provider's outage. */
export const CHANNEL_SEND_POLICY: QueuePolicy = {
  retryLimit: 8,
  retryDelaySeconds: 10,
  expireInSeconds: 120,
};

export function channelWorkers(deps: ChannelDeps): QueueWorker[] {
  const inbound: QueueWorker<InboundJob> = {
    name: CHANNEL_INBOUND_QUEUE,
    policy: CHANNEL_INBOUND_POLICY,
    // Different people are answered side by side; one person's messages wait for each other (answer.ts).
    batchSize: 8,
    handler: (job) => answerContact(deps, job.data, { lastTry: job.retryCount >= job.retryLimit }),
  };
  const send: QueueWorker<SendJob> = {
    name: OUTBOX_SEND_QUEUE,
    policy: CHANNEL_SEND_POLICY,
    batchSize: 8,
    handler: (job) => sendReplyJob(deps, job),
  };
  return [inbound as QueueWorker, send as QueueWorker];
}
