import "server-only";
import { and, eq } from "drizzle-orm";
import type { Db, TenantTx } from "../client";
import { packConfigs, type SealedSecret } from "../schema";

// A tenant's saved pack parameters, stored as given. Every function takes a tenant-scoped transaction
// (db.forTenant), so RLS limits it to that tenant's rows. Secrets arrive sealed (src/lib/tools/config-store.ts
// seals and opens them); this module never sees a plain secret.

export type PackConfigRow = typeof packConfigs.$inferSelect;

export async function listPackConfigs(tx: TenantTx): Promise<PackConfigRow[]> {
  return tx.select().from(packConfigs).orderBy(packConfigs.packId);
}

export async function getPackConfig(tx: TenantTx, packId: string): Promise<PackConfigRow | null> {
  const [row] = await tx.select().from(packConfigs).where(eq(packConfigs.packId, packId)).limit(1);
  return row ?? null;
}

export type PackConfigChange = {
  enabled?: boolean;
  config?: Record<string, unknown>;
  secretsSet?: Record<string, SealedSecret>;
  secretsClear?: string[];
};

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * Creates or updates one pack's row. `config`, when given, replaces the plain values as a whole; secrets are
 * merged: set ones replaced, cleared ones removed, others kept. Returns the keys whose value changed (secret
 * keys included, never values) for the audit log.
 */
export async function savePackConfig(
  tx: TenantTx,
  tenantId: string,
  packId: string,
  change: PackConfigChange,
  userId: string | null,
): Promise<{ changedFields: string[] }> {
  const existing = await getPackConfig(tx, packId);
  const changed = new Set<string>();

  const enabled = change.enabled ?? existing?.enabled ?? false;
  if (enabled !== (existing?.enabled ?? false)) changed.add("enabled");

  const oldConfig = (existing?.config ?? {}) as Record<string, unknown>;
  const config = change.config ?? oldConfig;
  for (const k of new Set([...Object.keys(oldConfig), ...Object.keys(config)])) {
    if (!same(oldConfig[k], config[k])) changed.add(k);
  }

  const secrets: Record<string, SealedSecret> = { ...(existing?.secrets ?? {}) };
  for (const k of change.secretsClear ?? []) {
    if (secrets[k]) {
      delete secrets[k];
      changed.add(k);
    }
  }
  for (const [k, sealed] of Object.entries(change.secretsSet ?? {})) {
    secrets[k] = sealed;
    changed.add(k);
  }

  const values = { enabled, config, secrets, updatedBy: userId, updatedAt: new Date() };
  if (existing) {
    await tx
      .update(packConfigs)
      .set(values)
      .where(and(eq(packConfigs.tenantId, tenantId), eq(packConfigs.packId, packId)));
  } else {
    await tx.insert(packConfigs).values({ tenantId, packId, ...values });
  }
  return { changedFields: [...changed] };
}

/** Remembers the Test panel's last run of a saved pack; a pack never saved has no row and keeps none. */
export async function recordPackTest(tx: TenantTx, packId: string, outcome: string): Promise<void> {
  await tx
    .update(packConfigs)
    .set({ lastTestOutcome: outcome, lastTestAt: new Date() })
    .where(eq(packConfigs.packId, packId));
}

/** Platform path for the first-start seed: a pack row for a tenant created in the same transaction. */
export async function insertPackConfigIfMissing(
  db: Db,
  row: { tenantId: string; packId: string; enabled: boolean; config: Record<string, unknown> },
): Promise<void> {
  await db.insert(packConfigs).values(row).onConflictDoNothing();
}
