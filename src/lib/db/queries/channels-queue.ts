import "server-only";
import { and, eq, inArray, isNull, lt, sql } from "drizzle-orm";
import { type Db, type DbHandle, rowsOf, type TenantTx } from "../client";
import { channelInbound, type InboundBody } from "../schema";

// Storing inbound messages and knowing which have their job queued. The webhook stores a message and answers
// before the job exists (src/lib/channels/enqueue.ts); the job is marked queued in the transaction that
// queues it, and a process that died in between leaves messages the sweep finds.

export type NewInbound = {
  tenantId: string;
  connectionId: string;
  externalId: string;
  contact: string;
  address: string;
  kind: string;
  body: InboundBody;
  sentAt: Date;
};

/**
 * Stores the messages not seen before and answers the contacts that got a new one (a retry stores nothing).
 * One round trip (michi_store_inbound enters the tenant itself, drizzle/0033): the webhook's acknowledgement
 * waits for it, and providers time that.
 */
export async function storeInbound(db: DbHandle, tenantId: string, rows: NewInbound[]): Promise<string[]> {
  if (rows.length === 0) return [];
  const json = rows.map((r) => ({
    connection_id: r.connectionId,
    external_id: r.externalId,
    contact: r.contact,
    address: r.address,
    kind: r.kind,
    body: r.body,
    sent_at: r.sentAt.toISOString(),
  }));
  return (
    (await db.urgent.tenantCall<string[]>("michi_store_inbound", tenantId, [JSON.stringify(json)])) ?? []
  );
}

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
