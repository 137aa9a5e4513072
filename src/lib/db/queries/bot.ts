import "server-only";
import { eq } from "drizzle-orm";
import type { TenantTx } from "../client";
import { type BotSettings, tenants } from "../schema";

// The tenant's own settings row: the bot document and the site domains. Every call runs inside
// forTenant, where RLS lets a tenant see and update only its own row; the id filter says which row we mean.

export type TenantSettings = {
  bot: BotSettings;
  siteDomains: string[];
  widgetKey: string;
  widgetSeenAt: Date | null;
};

export async function getTenantSettings(tx: TenantTx, tenantId: string): Promise<TenantSettings | null> {
  const [row] = await tx
    .select({
      bot: tenants.bot,
      siteDomains: tenants.siteDomains,
      widgetKey: tenants.widgetKey,
      widgetSeenAt: tenants.widgetSeenAt,
    })
    .from(tenants)
    .where(eq(tenants.id, tenantId))
    .limit(1);
  return row ?? null;
}

/** Names of the keys whose values differ, in a stable order; what the audit log records (never the values). */
export function changedKeys<T extends Record<string, unknown>>(before: T, after: T): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys]
    .filter((k) => JSON.stringify(before[k] ?? null) !== JSON.stringify(after[k] ?? null))
    .sort();
}

/** Replaces the bot document; returns the names of the settings that changed. */
export async function saveBotSettings(
  tx: TenantTx,
  tenantId: string,
  next: BotSettings,
): Promise<{ changed: string[] }> {
  const current = await getTenantSettings(tx, tenantId);
  if (!current) throw new Error("tenant row not visible in its own scope");
  const changed = changedKeys(current.bot as Record<string, unknown>, next as Record<string, unknown>);
  if (changed.length > 0) {
    await tx.update(tenants).set({ bot: next, updatedAt: new Date() }).where(eq(tenants.id, tenantId));
  }
  return { changed };
}

/** Replaces the site domains; returns which entries were added and removed. */
export async function saveSiteDomains(
  tx: TenantTx,
  tenantId: string,
  next: string[],
): Promise<{ added: string[]; removed: string[] }> {
  const current = await getTenantSettings(tx, tenantId);
  if (!current) throw new Error("tenant row not visible in its own scope");
  const before = new Set(current.siteDomains);
  const after = new Set(next);
  const added = next.filter((d) => !before.has(d));
  const removed = current.siteDomains.filter((d) => !after.has(d));
  const reordered = added.length === 0 && removed.length === 0 && current.siteDomains.join() !== next.join();
  if (added.length > 0 || removed.length > 0 || reordered) {
    await tx
      .update(tenants)
      .set({ siteDomains: next, updatedAt: new Date() })
      .where(eq(tenants.id, tenantId));
  }
  return { added, removed };
}
