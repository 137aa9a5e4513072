import "server-only";
import { and, desc, eq, sql } from "drizzle-orm";
import type { Db, TenantTx } from "../client";
import { rowsOf } from "../client";
import {
  conversations,
  type DeliveryStatus,
  type SealedSecret,
  tenants,
  type VerifiedVisitor,
  type WebhookEventType,
  webhookDeliveries,
  webhookEndpoints,
} from "../schema";

// Webhook endpoints and their delivery log, as plain rows. Sealing the secret and deciding what a failure
// means belong to src/lib/webhooks.

export type EndpointRow = typeof webhookEndpoints.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

export async function listEndpoints(tx: TenantTx): Promise<EndpointRow[]> {
  return tx.select().from(webhookEndpoints).orderBy(webhookEndpoints.createdAt, webhookEndpoints.id);
}

export async function countEndpoints(tx: TenantTx): Promise<number> {
  return tx.$count(webhookEndpoints);
}

export async function getEndpoint(tx: TenantTx, id: string): Promise<EndpointRow | null> {
  const [row] = await tx.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
  return row ?? null;
}

export async function insertEndpoint(
  tx: TenantTx,
  values: {
    id: string;
    tenantId: string;
    url: string;
    description: string;
    events: WebhookEventType[];
    secret: SealedSecret;
  },
): Promise<EndpointRow> {
  const [row] = await tx.insert(webhookEndpoints).values(values).returning();
  return row!;
}

export async function updateEndpoint(
  tx: TenantTx,
  id: string,
  patch: Partial<
    Pick<
      EndpointRow,
      "url" | "description" | "events" | "secret" | "enabled" | "disabledReason" | "disabledAt"
    >
  >,
): Promise<EndpointRow | null> {
  const [row] = await tx
    .update(webhookEndpoints)
    .set({ ...patch, updatedAt: new Date() })
    .where(eq(webhookEndpoints.id, id))
    .returning();
  return row ?? null;
}

export async function deleteEndpoint(tx: TenantTx, id: string): Promise<boolean> {
  const rows = await tx
    .delete(webhookEndpoints)
    .where(eq(webhookEndpoints.id, id))
    .returning({ id: webhookEndpoints.id });
  return rows.length > 0;
}

/** Enabled endpoints that asked for this event type. */
export async function endpointsFor(tx: TenantTx, type: WebhookEventType): Promise<EndpointRow[]> {
  return tx
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.enabled, true), sql`${type} = any(${webhookEndpoints.events})`));
}

/**
 * Replaces the payload of a delivery that has not been attempted yet (a rating whose comment arrived while its
 * event was still waiting); false when there is none, or it has been sent.
 */
export async function replacePendingPayload(
  tx: TenantTx,
  endpointId: string,
  dedupeKey: string,
  payload: Record<string, unknown>,
): Promise<boolean> {
  const rows = await tx
    .update(webhookDeliveries)
    .set({ payload })
    .where(
      and(
        eq(webhookDeliveries.endpointId, endpointId),
        // The first event's key, or a later one's (key:messageId) once the first had been sent.
        sql`(${webhookDeliveries.dedupeKey} = ${dedupeKey} or ${webhookDeliveries.dedupeKey} like ${`${dedupeKey}:%`})`,
        eq(webhookDeliveries.status, "pending"),
        eq(webhookDeliveries.attempts, 0),
      ),
    )
    .returning({ id: webhookDeliveries.id });
  return rows.length > 0;
}

/** Inserts one delivery; null when this endpoint already has the same dedupe key (an event told twice). */
export async function insertDelivery(
  tx: TenantTx,
  values: Pick<DeliveryRow, "tenantId" | "endpointId" | "messageId" | "eventType" | "dedupeKey" | "payload">,
): Promise<string | null> {
  const rows = await tx
    .insert(webhookDeliveries)
    .values(values)
    .onConflictDoNothing({ target: [webhookDeliveries.endpointId, webhookDeliveries.dedupeKey] })
    .returning({ id: webhookDeliveries.id });
  return rows[0]?.id ?? null;
}

export async function getDelivery(tx: TenantTx, id: string): Promise<DeliveryRow | null> {
  const [row] = await tx.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
  return row ?? null;
}

export async function recordAttempt(
  tx: TenantTx,
  id: string,
  outcome: { status: DeliveryStatus; statusCode: number | null; error: string | null },
): Promise<void> {
  await tx
    .update(webhookDeliveries)
    .set({
      status: outcome.status,
      attempts: sql`${webhookDeliveries.attempts} + 1`,
      lastStatusCode: outcome.statusCode,
      lastError: outcome.error,
      lastAttemptAt: new Date(),
      ...(outcome.status === "delivered" ? { deliveredAt: new Date() } : {}),
    })
    .where(eq(webhookDeliveries.id, id));
}

export async function setDeliveryStatus(tx: TenantTx, id: string, status: DeliveryStatus, error?: string) {
  await tx
    .update(webhookDeliveries)
    .set({ status, ...(error !== undefined ? { lastError: error } : {}) })
    .where(eq(webhookDeliveries.id, id));
}

export async function listDeliveries(tx: TenantTx, endpointId: string, limit = 50): Promise<DeliveryRow[]> {
  return tx
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.endpointId, endpointId))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(limit);
}

/** Platform: tenants with an enabled endpoint for this event (the quiet-period sweep visits only those). */
export async function tenantsSubscribedTo(db: Db, type: WebhookEventType): Promise<string[]> {
  const rows = await rowsOf<{ tenant_id: string }>(
    db,
    sql`select distinct tenant_id from webhook_endpoints where enabled and ${type} = any(events)`,
  );
  return rows.map((r) => r.tenant_id);
}

export type QuietConversation = {
  id: string;
  lastActivityAt: Date;
  messageCount: number;
  startedAt: Date;
  verifiedVisitor: VerifiedVisitor | null;
};

/** Conversations whose last activity fell in [from, to): quiet since, and not too old to announce. */
export async function conversationsQuietBetween(
  tx: TenantTx,
  from: Date,
  to: Date,
): Promise<QuietConversation[]> {
  const rows = await rowsOf<{
    id: string;
    last: string | Date;
    started: string | Date;
    n: number;
    verified: VerifiedVisitor | null;
  }>(
    tx,
    sql`select c.id, c.last_activity_at as last, c.started_at as started, c.verified_visitor as verified,
               (select count(*)::int from messages m where m.conversation_id = c.id) as n
        from ${conversations} c
        where c.last_activity_at >= ${from.toISOString()} and c.last_activity_at < ${to.toISOString()}
        order by c.last_activity_at
        limit 500`,
  );
  return rows.map((r) => ({
    id: r.id,
    lastActivityAt: new Date(r.last),
    startedAt: new Date(r.started),
    messageCount: r.n,
    verifiedVisitor: r.verified ?? null,
  }));
}

/** The tenant's slug, for links back into the admin. */
export async function tenantSlug(tx: TenantTx, tenantId: string): Promise<string | null> {
  const [row] = await tx.select({ slug: tenants.slug }).from(tenants).where(eq(tenants.id, tenantId));
  return row?.slug ?? null;
}

/** Endpoints the platform switched off after sustained failure (the admin banner). */
export async function countSwitchedOff(tx: TenantTx): Promise<number> {
  return tx.$count(webhookEndpoints, sql`${webhookEndpoints.disabledReason} is not null`);
}

/** Platform: tenants with delivery log entries older than `before` (the log's own retention). */
export async function tenantsWithOldDeliveries(db: Db, before: Date): Promise<string[]> {
  const rows = await rowsOf<{ tenant_id: string }>(
    db,
    sql`select distinct tenant_id from webhook_deliveries where created_at < ${before.toISOString()}`,
  );
  return rows.map((r) => r.tenant_id);
}

/** Deletes this tenant's finished delivery log entries older than `before`; ones still in flight stay. */
export async function deleteOldDeliveries(tx: TenantTx, before: Date): Promise<number> {
  const rows = await tx
    .delete(webhookDeliveries)
    .where(
      sql`${webhookDeliveries.createdAt} < ${before.toISOString()} and ${webhookDeliveries.status} in ('delivered', 'failed')`,
    )
    .returning({ id: webhookDeliveries.id });
  return rows.length;
}

/** Switches an endpoint off with the platform's reason; false when it was off already (another run won). */
export async function switchOffEndpoint(tx: TenantTx, id: string, reason: string): Promise<boolean> {
  const rows = await tx
    .update(webhookEndpoints)
    .set({ enabled: false, disabledReason: reason, disabledAt: new Date(), updatedAt: new Date() })
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.enabled, true)))
    .returning({ id: webhookEndpoints.id });
  return rows.length > 0;
}
