import "server-only";
import { eq, sql } from "drizzle-orm";
import { type Db, rowsOf, type TenantTx } from "../client";
import { tenants } from "../schema";

// Days are counted as 24 hours (never a calendar day in the session's time zone, which DST would stretch),
// the same in both statements below, so the tenant list and the deletes agree.
// Retention: conversations whose last activity is older than the tenant's retention_days are deleted (their
// messages and tool runs go with them by cascade). Audit entries live in their own table and are kept.

// Any fixed number works; it only has to be the same for every instance (and differ from the migrator's).
export const PURGE_LOCK = 4_242_007;

/** The purge's advisory lock for the rest of `tx`; false when another instance is purging right now. */
export async function tryPurgeLock(tx: TenantTx): Promise<boolean> {
  const [lock] = await rowsOf<{ ok: boolean }>(
    tx,
    sql`select pg_try_advisory_xact_lock(${PURGE_LOCK}::bigint) as ok`,
  );
  return lock?.ok === true;
}

export const RETENTION_MIN_DAYS = 1;
export const RETENTION_MAX_DAYS = 3650;

/**
 * Platform path: which tenants have anything to purge at `now`, with their retention. Reading this needs every
 * tenant's row, which no tenant scope can see; the deleting itself happens per tenant in forTenant.
 */
export async function tenantsWithExpired(
  db: Db,
  now: Date,
): Promise<{ id: string; retentionDays: number }[]> {
  return rowsOf(
    db,
    sql`select t.id, t.retention_days as "retentionDays"
        from tenants t
        where exists (
          select 1 from conversations c
          where c.tenant_id = t.id
            and c.last_activity_at < ${now.toISOString()}::timestamptz - make_interval(hours => t.retention_days * 24)
        )
        order by t.id`,
  );
}

/** Deletes up to `limit` expired conversations of one tenant, oldest first; returns how many went. */
export async function purgeBatch(
  tx: TenantTx,
  tenantId: string,
  retentionDays: number,
  now: Date,
  limit: number,
): Promise<number> {
  const cutoff = new Date(now.getTime() - retentionDays * 86_400_000).toISOString();
  const rows = await rowsOf<{ id: string }>(
    tx,
    sql`delete from conversations
        where id in (
          select c.id from conversations c
          where c.tenant_id = ${tenantId} and c.last_activity_at < ${cutoff}::timestamptz
          order by c.last_activity_at, c.id
          limit ${limit}
        )
        returning id`,
  );
  return rows.length;
}

/** Tenant path: the tenant's retention setting. */
export async function getRetentionDays(tx: TenantTx, tenantId: string): Promise<number | null> {
  const [row] = await tx
    .select({ days: tenants.retentionDays })
    .from(tenants)
    .where(eq(tenants.id, tenantId))
    .limit(1);
  return row?.days ?? null;
}

/** Tenant path: sets the retention; returns the previous value, or null when nothing was updated. */
export async function setRetentionDays(tx: TenantTx, tenantId: string, days: number): Promise<number | null> {
  const before = await getRetentionDays(tx, tenantId);
  if (before === null) return null;
  await tx
    .update(tenants)
    .set({ retentionDays: days, updatedAt: new Date() })
    .where(eq(tenants.id, tenantId));
  return before;
}
