import "server-only";
import type { DbHandle } from "../db";
import { markQueued, tenantsWithUnqueuedInbound, unqueuedContacts } from "../db/queries/channels-queue";
import { registerJob } from "../jobs";
import { log } from "../log";
import { type JobQueue, processQueue } from "../queue";
import { CHANNEL_INBOUND_QUEUE, type InboundJob } from "./jobs";

// Queueing a person's inbound job apart from storing their message. The webhook's acknowledgement stores the
// message alone (its own short transaction, deduplicated on the provider's id) and answers 200; the job is
// queued just after, in a transaction that also marks the person's messages queued. Meta retries what it
// does not see acknowledged quickly, and pg-boss's insert and a second round of the transaction were a large
// part of an acknowledgement that competes with the answering workers for the database (bench/README.md).
//
// Nothing is lost when the process dies between the two: the message is stored with queued_at null, and the
// sweep queues a job for every such message older than SWEEP_AFTER_MS. A job more than needed (the sweep and
// a late enqueue both) answers nothing twice: the worker claims the person and answers only pending
// messages, marking each answered in the transaction that stores its reply (answer.ts).

/** Older than this and still unqueued, a message was left behind (normally it is queued within milliseconds). */
export const SWEEP_AFTER_MS = 30_000;
const SWEEP_EVERY_MS = 30_000;

/** Queues one job per contact and marks their messages queued, in one transaction. */
export async function queueContacts(
  db: DbHandle,
  q: JobQueue,
  tenantId: string,
  connectionId: string,
  contacts: string[],
): Promise<void> {
  if (contacts.length === 0) return;
  await db.forTenant(tenantId, async (tx) => {
    for (const contact of contacts) {
      const job: InboundJob = { tenantId, connectionId, contact };
      await q.sendIn(tx, CHANNEL_INBOUND_QUEUE, job);
    }
    await markQueued(tx, connectionId, contacts);
  });
}

const inFlight = new Set<Promise<void>>();

/** After the acknowledgement's commit, without holding up its answer; a failure is left to the sweep. */
export function queueAfterAck(
  db: DbHandle,
  q: JobQueue,
  tenantId: string,
  connectionId: string,
  contacts: string[],
): void {
  const p = queueContacts(db, q, tenantId, connectionId, contacts)
    .catch((err) => {
      log().warn(
        { err: { message: (err as Error).message }, connectionId },
        "channel message stored but not queued; the sweep will queue it",
      );
    })
    .finally(() => inFlight.delete(p));
  inFlight.add(p);
}

/** Resolves when the jobs of every acknowledgement so far are queued (or failed): tests and the bench. */
export async function queuedSoFar(): Promise<void> {
  await Promise.all([...inFlight]);
}

/**
 * Queues the messages stored more than `olderThanMs` ago and never queued; answers how many people got a
 * job. Every instance may run it: a job too many answers nothing twice.
 */
export async function sweepUnqueuedInbound(
  db: DbHandle,
  opts: { olderThanMs?: number } = {},
): Promise<number> {
  const queue = processQueue();
  if (!queue) return 0;
  const q = await queue;
  const before = new Date(Date.now() - (opts.olderThanMs ?? SWEEP_AFTER_MS));
  let queued = 0;
  for (const tenantId of await tenantsWithUnqueuedInbound(db.platform, before)) {
    try {
      const left = await db.forTenant(tenantId, (tx) => unqueuedContacts(tx, before));
      const byConnection = new Map<string, string[]>();
      for (const r of left)
        byConnection.set(r.connectionId, [...(byConnection.get(r.connectionId) ?? []), r.contact]);
      for (const [connectionId, contacts] of byConnection) {
        await queueContacts(db, q, tenantId, connectionId, contacts);
        queued += contacts.length;
      }
    } catch (err) {
      log().warn({ tenantId, err: { message: (err as Error).message } }, "channel inbound sweep failed");
    }
  }
  if (queued > 0) log().info({ queued }, "channel inbound sweep queued messages left unqueued");
  return queued;
}

/** Boot: the sweep with the process's periodic jobs; its first run picks up what a previous process left. */
export function registerInboundSweep(db: DbHandle): void {
  registerJob({
    name: "channel-inbound-sweep",
    everyMs: SWEEP_EVERY_MS,
    run: async () => {
      await sweepUnqueuedInbound(db);
    },
  });
}
