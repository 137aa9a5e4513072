import "server-only";
import { and, eq, inArray, isNull, lt, sql } from "drizzle-orm";
import { type Db, rowsOf, type TenantTx } from "../client";
import { channelInbound } from "../schema";

// Which inbound messages have their job queued. The webhook stores a message and answers before the job
// exists (src/lib/channels/enqueue.ts); these mark the job as queued, in the transaction that queues it, and
// find what a process that died in between left unqueued.

/** Marks the contacts' unqueued messages queued: a job for a contact answers all of its pending messages. */
export async function markQueued(tx: TenantTx, connectionId: string, contacts: string[]): Promise<void> {
  if (contacts.length === 0) return;
  await tx
    .update(channelInbound)
    .set({ queuedAt: sql`now()` })
    .where(
      and(
        eq(channelInbound.connectionId, connectionId),
        inArray(channelInbound.contact, contacts),
        isNull(channelInbound.queuedAt),
      ),
    );
}

/** Platform: the businesses with a pending message stored before `before` and never queued. */
export async function tenantsWithUnqueuedInbound(db: Db, before: Date): Promise<string[]> {
  // Served by channel_inbound_unqueued_idx (drizzle/0033), which holds only such rows.
  const rows = await rowsOf<{ tenant_id: string }>(
    db,
    sql`select distinct tenant_id from channel_inbound
        where queued_at is null and status = 'pending' and received_at < ${before.toISOString()}::timestamptz`,
  );
  return rows.map((r) => r.tenant_id);
}

/** The contacts of one business with a pending message stored before `before` and never queued. */
export async function unqueuedContacts(
  tx: TenantTx,
  before: Date,
): Promise<{ connectionId: string; contact: string }[]> {
  return tx
    .selectDistinct({ connectionId: channelInbound.connectionId, contact: channelInbound.contact })
    .from(channelInbound)
    .where(
      and(
        isNull(channelInbound.queuedAt),
        eq(channelInbound.status, "pending"),
        lt(channelInbound.receivedAt, before),
      ),
    );
}
