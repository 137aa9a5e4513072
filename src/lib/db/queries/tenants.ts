import "server-only";
import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Db, TenantTx } from "../client";
import { type BotSettings, tenants } from "../schema";

export function newWidgetKey(): string {
  return `wk_${randomBytes(15).toString("base64url")}`;
}

export const SLUG_RE = /^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/;

export async function createTenant(
  db: Db,
  input: { slug: string; name: string; bot?: BotSettings; siteDomains?: string[] },
) {
  const [row] = await db
    .insert(tenants)
    .values({
      slug: input.slug,
      name: input.name,
      widgetKey: newWidgetKey(),
      bot: input.bot ?? {},
      siteDomains: input.siteDomains ?? [],
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

/** Platform path: the widget's public key is the only thing a visitor presents. */
export async function findTenantByWidgetKey(db: Db, key: string) {
  const [row] = await db.select().from(tenants).where(eq(tenants.widgetKey, key)).limit(1);
  return row ?? null;
}

/** Tenant path: RLS lets a tenant read only its own row. */
export async function getOwnTenant(tx: TenantTx, tenantId: string) {
  const [row] = await tx.select().from(tenants).where(eq(tenants.id, tenantId)).limit(1);
  return row ?? null;
}
