import "server-only";
import { and, eq, sql } from "drizzle-orm";
import type { Db, TenantTx } from "../client";
import {
  type Channel,
  type ChannelSettings,
  channelConnections,
  channelPlatform,
  type RefusalReason,
  type SealedSecret,
  tenants,
} from "../schema";

// Channel connections as plain rows, and the operator's platform-wide switch. Sealing secrets and deciding
// what a provider's answer means belong to src/lib/channels.

export type ConnectionRow = typeof channelConnections.$inferSelect;
type TenantRow = typeof tenants.$inferSelect;

/**
 * Platform path: the connection a webhook URL's key names, with its tenant. The key is the only way in; a
 * request's body never chooses the business. Also says whether the operator has channels switched on.
 */
export async function findConnectionByKey(
  db: Db,
  channel: Channel,
  key: string,
): Promise<{ connection: ConnectionRow; tenant: TenantRow; platformOn: boolean } | null> {
  const [row] = await db
    .select({
      connection: channelConnections,
      tenant: tenants,
      platformOn: sql<boolean>`coalesce((select p.enabled from channel_platform p), true)`,
    })
    .from(channelConnections)
    .innerJoin(tenants, eq(tenants.id, channelConnections.tenantId))
    .where(and(eq(channelConnections.key, key), eq(channelConnections.channel, channel)));
  return row ?? null;
}

export async function listConnections(tx: TenantTx): Promise<ConnectionRow[]> {
  return tx.select().from(channelConnections).orderBy(channelConnections.channel);
}

export async function getConnection(tx: TenantTx, id: string): Promise<ConnectionRow | null> {
  const [row] = await tx.select().from(channelConnections).where(eq(channelConnections.id, id));
  return row ?? null;
}

export async function getConnectionByChannel(tx: TenantTx, channel: Channel): Promise<ConnectionRow | null> {
  const [row] = await tx.select().from(channelConnections).where(eq(channelConnections.channel, channel));
  return row ?? null;
}

/** Inserts or replaces the business's connection for a channel; the key is kept when one exists. */
export async function upsertConnection(
  tx: TenantTx,
  values: {
    id: string;
    tenantId: string;
    channel: Channel;
    key: string;
    settings: ChannelSettings;
    secrets: Record<string, SealedSecret>;
  },
): Promise<ConnectionRow> {
  const [row] = await tx
    .insert(channelConnections)
    .values(values)
    .onConflictDoUpdate({
      target: [channelConnections.tenantId, channelConnections.channel],
      set: {
        settings: values.settings,
        secrets: sql`${channelConnections.secrets} || excluded.secrets`,
        enabled: true,
        lastError: null,
        lastErrorAt: null,
        updatedAt: new Date(),
      },
    })
    .returning();
  return row!;
}

export async function deleteConnection(tx: TenantTx, id: string): Promise<boolean> {
  const rows = await tx
    .delete(channelConnections)
    .where(eq(channelConnections.id, id))
    .returning({ id: channelConnections.id });
  return rows.length > 0;
}

export async function noteConnection(tx: TenantTx, id: string, error: string | null): Promise<void> {
  await tx
    .update(channelConnections)
    .set({ lastError: error, lastErrorAt: error ? new Date() : null })
    .where(
      and(
        eq(channelConnections.id, id),
        // A success clears the last problem; when there is none, the row is left alone (and unlocked).
        error === null ? sql`${channelConnections.lastError} is not null` : sql`true`,
      ),
    );
}

/**
 * Records traffic on a connection at most every ten seconds. Every webhook and every send touches the same
 * row, so an unconditional update in the webhook's transaction made each delivery wait for the previous
 * one's commit (npm run bench: channels.ack); a row the condition skips is not locked at all.
 */
export async function touchConnection(tx: TenantTx, id: string, what: "inbound" | "outbound"): Promise<void> {
  const col = what === "inbound" ? channelConnections.lastInboundAt : channelConnections.lastOutboundAt;
  await tx
    .update(channelConnections)
    .set(what === "inbound" ? { lastInboundAt: new Date() } : { lastOutboundAt: new Date() })
    .where(
      and(eq(channelConnections.id, id), sql`(${col} is null or ${col} < now() - interval '10 seconds')`),
    );
}

/**
 * Records refused deliveries: `count` more since the last write, the latest reason, at `at`. The condition
 * keeps it to one write a minute per connection even across processes; a row it skips is not locked. Nothing
 * of the refused request is written, only the fixed reason.
 */
export async function recordRefusal(
  tx: TenantTx,
  id: string,
  reason: RefusalReason,
  count: number,
  at: Date,
): Promise<boolean> {
  const rows = await tx
    .update(channelConnections)
    .set({
      lastRefusedAt: at,
      lastRefusedReason: reason,
      refusedCount: sql`${channelConnections.refusedCount} + ${count}`,
    })
    .where(
      and(
        eq(channelConnections.id, id),
        sql`(${channelConnections.lastRefusedAt} is null or ${channelConnections.lastRefusedAt} <= ${new Date(at.getTime() - 60_000)})`,
      ),
    )
    .returning({ id: channelConnections.id });
  return rows.length > 0;
}

/** A delivery passed its check: the refusals before it are no longer the connection's state. */
export async function clearRefusals(tx: TenantTx, id: string): Promise<void> {
  await tx
    .update(channelConnections)
    .set({ lastRefusedAt: null, lastRefusedReason: null, refusedCount: 0 })
    .where(and(eq(channelConnections.id, id), sql`${channelConnections.lastRefusedAt} is not null`));
}

/** Platform path: whether the operator lets channels run at all. */
export async function channelsSwitchedOn(db: Db): Promise<boolean> {
  const [row] = await db.select({ enabled: channelPlatform.enabled }).from(channelPlatform);
  return row?.enabled ?? true;
}

export async function setChannelsSwitch(db: Db, enabled: boolean): Promise<void> {
  await db
    .insert(channelPlatform)
    .values({ id: true, enabled })
    .onConflictDoUpdate({ target: channelPlatform.id, set: { enabled, updatedAt: new Date() } });
}

/**
 * Whether a channel offers "Talk to a person" as a button: the business switched on request_human (the
 * assistant may offer a person), or it has set up live chat (saved its Live chat settings, or someone of the
 * team has opened the console). One statement; the rows are the tenant's own under row-level security.
 */
export async function offersPersonButton(tx: TenantTx, tenantId: string): Promise<boolean> {
  const rows = await tx.execute(sql`
    select (
      exists (select 1 from pack_configs where tenant_id = ${tenantId} and pack_id = 'request_human' and enabled)
      or exists (select 1 from live_settings where tenant_id = ${tenantId})
      or exists (select 1 from live_presence where tenant_id = ${tenantId})
    ) as yes`);
  return (rows as unknown as { rows: { yes: boolean }[] }).rows[0]?.yes === true;
}
