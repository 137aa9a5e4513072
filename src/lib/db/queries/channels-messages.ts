import "server-only";
import { and, asc, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
import type { TenantTx } from "../client";
import {
  type Channel,
  channelContacts,
  channelInbound,
  channelOutbound,
  conversations,
  type InboundStatus,
  type OutboundBody,
  type OutboundReply,
  type OutboundStatus,
} from "../schema";

// The people who write on a channel, their inbound messages (each once) and the messages sent to them, as
// plain rows. Ordering, the window and retries are decided in src/lib/channels.

export type ContactRow = typeof channelContacts.$inferSelect;
export type InboundRow = typeof channelInbound.$inferSelect;
export type OutboundRow = typeof channelOutbound.$inferSelect;

/** The contact's oldest message still to answer, by the time the person sent it. */
export async function nextPendingInbound(
  tx: TenantTx,
  connectionId: string,
  contact: string,
): Promise<InboundRow | null> {
  const [row] = await tx
    .select()
    .from(channelInbound)
    .where(
      and(
        eq(channelInbound.connectionId, connectionId),
        eq(channelInbound.contact, contact),
        eq(channelInbound.status, "pending"),
      ),
    )
    .orderBy(asc(channelInbound.sentAt), asc(channelInbound.receivedAt), asc(channelInbound.id))
    .limit(1);
  return row ?? null;
}

/** Marks a message processed and forgets the person's number and text on it. */
export async function finishInbound(tx: TenantTx, id: string, status: InboundStatus): Promise<void> {
  await tx
    .update(channelInbound)
    .set({ status, processedAt: new Date(), address: null, body: null })
    .where(eq(channelInbound.id, id));
}

/** Notes on a Telegram tap that its job removed the tapped keyboard, so a retry of the job still answers it. */
export async function markKeyboardRemoved(tx: TenantTx, id: string): Promise<void> {
  await tx
    .update(channelInbound)
    .set({ body: sql`coalesce(${channelInbound.body}, '{}'::jsonb) || '{"keyboardRemoved": true}'::jsonb` })
    .where(eq(channelInbound.id, id));
}

/**
 * The contact for an address, made with its conversation on first contact. The transaction-scoped advisory
 * lock on the contact makes two workers meeting a new person create one conversation, not two.
 */
export async function ensureContact(
  tx: TenantTx,
  c: { tenantId: string; connectionId: string; address: string; visitorId: string; channel: Channel },
): Promise<ContactRow> {
  await tx.execute(
    sql`select pg_advisory_xact_lock(hashtextextended(${`${c.connectionId}:${c.visitorId}`}, 0))`,
  );
  const where = and(eq(channelContacts.connectionId, c.connectionId), eq(channelContacts.address, c.address));
  const [found] = await tx.select().from(channelContacts).where(where);
  if (found) return found;
  const [conv] = await tx
    .insert(conversations)
    .values({ tenantId: c.tenantId, visitorId: c.visitorId, origin: c.channel, channel: c.channel })
    .returning({ id: conversations.id });
  const [row] = await tx
    .insert(channelContacts)
    .values({
      tenantId: c.tenantId,
      connectionId: c.connectionId,
      address: c.address,
      conversationId: conv!.id,
    })
    .returning();
  return row!;
}

/** Takes the contact for `leaseMs` when nobody holds it (or the holder's lease ran out); false otherwise. */
export async function claimContact(
  tx: TenantTx,
  connectionId: string,
  address: string,
  leaseMs: number,
): Promise<boolean> {
  const rows = await tx
    .update(channelContacts)
    .set({ busyUntil: sql`now() + make_interval(secs => ${leaseMs / 1000})` })
    .where(
      and(
        eq(channelContacts.connectionId, connectionId),
        eq(channelContacts.address, address),
        or(isNull(channelContacts.busyUntil), lt(channelContacts.busyUntil, sql`now()`)),
      ),
    )
    .returning({ a: channelContacts.address });
  return rows.length > 0;
}

export async function renewContact(tx: TenantTx, connectionId: string, address: string, leaseMs: number) {
  await tx
    .update(channelContacts)
    .set({ busyUntil: sql`now() + make_interval(secs => ${leaseMs / 1000})` })
    .where(and(eq(channelContacts.connectionId, connectionId), eq(channelContacts.address, address)));
}

export async function releaseContact(tx: TenantTx, connectionId: string, address: string): Promise<void> {
  await tx
    .update(channelContacts)
    .set({ busyUntil: null })
    .where(and(eq(channelContacts.connectionId, connectionId), eq(channelContacts.address, address)));
}

export async function updateContact(
  tx: TenantTx,
  connectionId: string,
  address: string,
  patch: Partial<Pick<ContactRow, "lastInboundAt" | "optedOutAt">>,
): Promise<void> {
  await tx
    .update(channelContacts)
    .set(patch)
    .where(and(eq(channelContacts.connectionId, connectionId), eq(channelContacts.address, address)));
}

export async function contactOfConversation(
  tx: TenantTx,
  conversationId: string,
): Promise<ContactRow | null> {
  const [row] = await tx
    .select()
    .from(channelContacts)
    .where(eq(channelContacts.conversationId, conversationId));
  return row ?? null;
}

/** Stores one answer's replies in order (their part); each is formatted for the channel when sent. */
export async function insertOutbound(
  tx: TenantTx,
  rows: {
    tenantId: string;
    connectionId: string;
    conversationId: string;
    batch: string;
    reply: OutboundReply;
  }[],
): Promise<void> {
  if (rows.length === 0) return;
  await tx.insert(channelOutbound).values(rows.map((r, part) => ({ ...r, part })));
}

export async function batchParts(tx: TenantTx, batch: string): Promise<OutboundRow[]> {
  return tx
    .select()
    .from(channelOutbound)
    .where(eq(channelOutbound.batch, batch))
    .orderBy(asc(channelOutbound.part), asc(channelOutbound.piece));
}

/**
 * A stored reply becomes the channel's messages: its own row takes the first, further pieces follow it. Only
 * the first sender to get here does it (the row is still unformatted), so two senders never both add pieces.
 * Answers the reply's rows now, or null when another sender got there first.
 */
export async function expandReply(
  tx: TenantTx,
  row: OutboundRow,
  bodies: OutboundBody[],
): Promise<OutboundRow[] | null> {
  const [first, ...rest] = bodies;
  const [won] = await tx
    .update(channelOutbound)
    .set(
      first
        ? { body: first, updatedAt: new Date() }
        : { body: { text: "" }, status: "failed", errorTitle: "Nothing to send.", updatedAt: new Date() },
    )
    .where(and(eq(channelOutbound.id, row.id), isNull(channelOutbound.body)))
    .returning();
  if (!won) return null;
  if (rest.length === 0) return [won];
  const pieces = await tx
    .insert(channelOutbound)
    .values(
      rest.map((body, i) => ({
        tenantId: row.tenantId,
        connectionId: row.connectionId,
        conversationId: row.conversationId,
        batch: row.batch,
        part: row.part,
        piece: i + 1,
        body,
      })),
    )
    .returning();
  return [won, ...pieces];
}

export async function recordSend(
  tx: TenantTx,
  id: string,
  outcome: {
    status: OutboundStatus;
    externalId?: string;
    errorCode?: string | null;
    errorTitle?: string | null;
  },
): Promise<void> {
  await tx
    .update(channelOutbound)
    .set({
      status: outcome.status,
      ...(outcome.externalId ? { externalId: outcome.externalId } : {}),
      errorCode: outcome.errorCode ?? null,
      errorTitle: outcome.errorTitle ?? null,
      attempts: sql`${channelOutbound.attempts} + 1`,
      updatedAt: new Date(),
    })
    .where(eq(channelOutbound.id, id));
}

const RANK: Record<OutboundStatus, number> = {
  queued: 0,
  sent: 1,
  delivered: 2,
  read: 3,
  failed: 4,
  outside_window: 4,
};

/**
 * A provider's status for a sent message. Statuses can arrive out of order (read before delivered), so one
 * never moves a message back; failed always wins, with the provider's code and title.
 */
export async function applyStatus(
  tx: TenantTx,
  connectionId: string,
  s: { externalId: string; status: "sent" | "delivered" | "read" | "failed"; code?: string; title?: string },
): Promise<void> {
  const lower = (Object.keys(RANK) as OutboundStatus[]).filter((k) => RANK[k] < RANK[s.status]);
  await tx
    .update(channelOutbound)
    .set({
      status: s.status,
      ...(s.status === "failed" ? { errorCode: s.code ?? null, errorTitle: s.title ?? null } : {}),
      updatedAt: new Date(),
    })
    .where(
      and(
        eq(channelOutbound.connectionId, connectionId),
        eq(channelOutbound.externalId, s.externalId),
        inArray(channelOutbound.status, lower),
      ),
    );
}

/** The latest messages sent on a connection, for the Channels page. */
export async function recentOutbound(
  tx: TenantTx,
  connectionId: string,
  limit: number,
): Promise<OutboundRow[]> {
  return tx
    .select()
    .from(channelOutbound)
    .where(eq(channelOutbound.connectionId, connectionId))
    .orderBy(sql`${channelOutbound.createdAt} desc`)
    .limit(limit);
}

/**
 * Whether another reply to the same conversation, stored before this batch (and not long ago), still has a
 * part waiting to go out: this batch waits for it, so a person's replies and the bot's arrive in order.
 */
export async function earlierQueued(tx: TenantTx, batch: string, withinMs: number): Promise<boolean> {
  const rows = await tx.execute(sql`
    select 1 from channel_outbound o
    join (select conversation_id, min(created_at) as at from channel_outbound where batch = ${batch}::uuid
          group by conversation_id) b on b.conversation_id = o.conversation_id
    where o.batch <> ${batch}::uuid and o.status = 'queued' and o.created_at < b.at
      and o.created_at > now() - make_interval(secs => ${withinMs / 1000})
    limit 1`);
  return (rows as unknown as { rows: unknown[] }).rows.length > 0;
}
