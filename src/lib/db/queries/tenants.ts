import "server-only";
import { randomBytes } from "node:crypto";
import { eq, getTableColumns, sql } from "drizzle-orm";
import type { Db, DbHandle, TenantTx } from "../client";
import { type BotSettings, tenants } from "../schema";

export function newWidgetKey(): string {
  return `wk_${randomBytes(15).toString("base64url")}`;
}

export type TenantRow = typeof tenants.$inferSelect;

export async function isSlugTaken(db: Db, slug: string): Promise<boolean> {
  const [row] = await db.select({ id: tenants.id }).from(tenants).where(eq(tenants.slug, slug)).limit(1);
  return row !== undefined;
}

/** Platform path: deleting a tenant cascades to everything it owns; the tenant role cannot do it. */
export async function deleteTenantRow(db: Db, tenantId: string): Promise<void> {
  await db.delete(tenants).where(eq(tenants.id, tenantId));
}

/**
 * Runs `fn` in one platform transaction under an advisory lock, so instances starting together on an empty
 * database cannot race to insert the same first rows.
 */
export async function inSeedLock<T>(handle: DbHandle, fn: (db: Db) => Promise<T>): Promise<T> {
  return handle.platform.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(4242002)`);
    // A transaction offers the same query API; drizzle's generics just do not say so.
    return fn(tx as unknown as Db);
  });
}

export async function createTenant(
  db: Db,
  input: { slug: string; name: string; bot?: BotSettings; siteDomains?: string[]; timeZone?: string },
) {
  const [row] = await db
    .insert(tenants)
    .values({
      slug: input.slug,
      name: input.name,
      widgetKey: newWidgetKey(),
      bot: input.bot ?? {},
      siteDomains: input.siteDomains ?? [],
      // A zone given here was chosen (the browser's at sign-up); without one the business starts in UTC.
      ...(input.timeZone ? { timeZone: input.timeZone, timeZoneChosenAt: new Date() } : {}),
    })
    .returning();
  if (!row) throw new Error("tenant insert returned nothing");
  return row;
}

/** Platform path: resolving a slug happens before the tenant is known. */
export async function findTenantBySlug(db: Db, slug: string) {
  const [row] = await db.select().from(tenants).where(eq(tenants.slug, slug)).limit(1);
  return row ?? null;
}

function tenantByKeyQuery(db: Db, named: boolean) {
  return (
    db
      // xmin: the row version, which every UPDATE replaces (see michi_open_turn_as_seen, src/lib/db/sql/turn-functions.sql).
      .select({ ...getTableColumns(tenants), seen: sql<string>`${tenants}.xmin::text` })
      .from(tenants)
      .where(eq(tenants.widgetKey, sql.placeholder("key")))
      .limit(1)
      .prepare(named ? "michi_tenant_by_widget_key" : "")
  );
}

// Built once per database handle: every widget request runs it, and drizzle would otherwise build the SQL
// again each time. `named` (Postgres only) also has the server parse and plan it once per connection; the
// embedded database must not use names, since its pooled connections share one backend and pg tracks them
// per connection.
const byKey = new WeakMap<Db, Map<boolean, ReturnType<typeof tenantByKeyQuery>>>();

/**
 * Platform path: the widget's public key is the only thing a visitor presents. `seen` names the version of
 * the row that was read, so a later statement can tell whether it is still the current one.
 */
export async function findTenantByWidgetKey(
  db: Db,
  key: string,
  opts: { named?: boolean } = {},
): Promise<{ tenant: TenantRow; seen: string } | null> {
  const named = opts.named ?? false;
  let forDb = byKey.get(db);
  if (!forDb) {
    forDb = new Map();
    byKey.set(db, forDb);
  }
  let q = forDb.get(named);
  if (!q) {
    q = tenantByKeyQuery(db, named);
    forDb.set(named, q);
  }
  const [row] = await q.execute({ key });
  if (!row) return null;
  const { seen, ...tenant } = row;
  return { tenant, seen };
}

/** Platform path: the widget was loaded from the tenant's own site; recorded at most once an hour. */
export async function touchWidgetSeen(db: Db, tenantId: string): Promise<void> {
  await db.execute(
    sql`update tenants set widget_seen_at = now()
        where id = ${tenantId} and (widget_seen_at is null or widget_seen_at < now() - interval '1 hour')`,
  );
}

/** Tenant path: RLS lets a tenant read only its own row. */
export async function getOwnTenant(tx: TenantTx, tenantId: string) {
  const [row] = await tx.select().from(tenants).where(eq(tenants.id, tenantId)).limit(1);
  return row ?? null;
}

export async function setTimeZone(tx: TenantTx, tenantId: string, timeZone: string): Promise<string | null> {
  const [before] = await tx.select({ tz: tenants.timeZone }).from(tenants).where(eq(tenants.id, tenantId));
  if (!before) return null;
  const now = new Date();
  await tx
    .update(tenants)
    .set({ timeZone, timeZoneChosenAt: now, updatedAt: now })
    .where(eq(tenants.id, tenantId));
  return before.tz;
}
