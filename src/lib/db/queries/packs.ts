import "server-only";
import { and, eq } from "drizzle-orm";
import { type SecretKeys, sealSecret } from "../../security/secrets";
import type { ConfigValue } from "../../tools/registry";
import type { TenantTx } from "../client";
import { packConfigs, type SealedSecret } from "../schema";

// A tenant's saved pack parameters. Every function takes a tenant-scoped transaction (db.forTenant), so RLS
// limits it to that tenant's rows. Secrets are sealed here and never returned in plain text.

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
  config?: Record<string, ConfigValue>;
  secretsSet?: Record<string, string>;
  secretsClear?: string[];
};

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * Creates or updates one pack's row. `config`, when given, replaces the plain values as a whole (it comes from
 * validatePackConfig); secrets are merged: set ones are sealed, cleared ones removed, others kept.
 * Returns the keys whose value changed (secret keys included, never values) for the audit log.
 */
export async function savePackConfig(
  tx: TenantTx,
  tenantId: string,
  packId: string,
  change: PackConfigChange,
  userId: string | null,
  keys?: SecretKeys,
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
  for (const [k, plain] of Object.entries(change.secretsSet ?? {})) {
    secrets[k] = sealSecret(plain, { tenantId, packId, key: k }, keys);
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
