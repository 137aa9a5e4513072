import "server-only";
import type { DbHandle, TenantTx } from "../db/client";
import { listPackConfigs, type PackConfigChange, savePackConfig } from "../db/queries/packs";
import type { SealedSecret } from "../db/schema";
import { log } from "../log";
import { processSlot } from "../process-slot";
import { openSecret, type SecretKeys, sealSecret } from "../security/secrets";
import { configSchema } from "./config";
import type { AnyConfig, ConfigValue, ToolPack } from "./contract";
import { ALL_PACKS } from "./index";
import { definitionFor, type EnabledPack } from "./runtime";

// A tenant's pack settings between the database and a pack: the only module that seals secrets on save and
// opens them on load. The queries below it store rows as they are; the run wrapper above it gets plain config.

type StoredConfig = { config: Record<string, unknown>; secrets: Record<string, SealedSecret> };

/** Parses a stored row into the config `run` receives; throws when it no longer fits the pack's fields. */
export function openPackConfig(pack: ToolPack, tenantId: string, stored: StoredConfig): AnyConfig {
  const merged: Record<string, unknown> = { ...stored.config };
  for (const f of pack.configFields) {
    if (f.type !== "secret") continue;
    const sealed = stored.secrets[f.key];
    merged[f.key] = sealed ? openSecret(sealed, { tenantId, packId: pack.id, key: f.key }) : undefined;
  }
  return configSchema(pack).parse(merged);
}

/** The packs a tenant has enabled, in its own transaction (for callers that have none open). */
export async function loadEnabledPacks(
  db: DbHandle,
  tenantId: string,
  packs: readonly ToolPack[] = ALL_PACKS,
): Promise<EnabledPack[]> {
  return db.forTenant(tenantId, (tx) => loadEnabledPacksIn(tx, tenantId, packs));
}

/** The packs a tenant has enabled, ready to run, read in the caller's transaction. */
export async function loadEnabledPacksIn(
  tx: TenantTx,
  tenantId: string,
  packs: readonly ToolPack[] = ALL_PACKS,
): Promise<EnabledPack[]> {
  const rows = await listPackConfigs(tx);
  return enabledPacksFrom(
    rows.filter((r) => r.enabled),
    tenantId,
    packs,
  );
}

type EnabledRow = StoredConfig & { packId: string; updatedAt: Date | string };

// Opened packs by tenant and pack, reused while the stored row is unchanged: a chat turn then neither opens
// the sealed secrets again nor re-parses a config this platform validated when it was saved. The stamp is the
// row's own content, so any change (a save, or an operator's direct edit) opens it afresh. Bounded: the
// oldest entries go first. Per process, like the other caches on globalThis.
const OPENED_MAX = 2000;
const openedSlot = processSlot<Map<string, { stamp: string; ready: EnabledPack }>>("OpenedPacks");

function stampOf(row: EnabledRow): string {
  const at = typeof row.updatedAt === "string" ? row.updatedAt : row.updatedAt.toISOString();
  return `${at}|${JSON.stringify(row.config)}|${JSON.stringify(row.secrets)}`;
}

/**
 * Enabled pack rows (as stored) made ready to run. A row whose pack is not registered, or that no longer
 * parses, is skipped and logged.
 */
export function enabledPacksFrom(
  rows: readonly EnabledRow[],
  tenantId: string,
  packs: readonly ToolPack[] = ALL_PACKS,
): EnabledPack[] {
  const opened = openedSlot.use(() => new Map());
  const out: EnabledPack[] = [];
  for (const row of rows) {
    const pack = packs.find((p) => p.id === row.packId);
    if (!pack) {
      log().warn({ tenantId, packId: row.packId }, "enabled pack is not registered; skipped");
      continue;
    }
    const id = `${tenantId}:${pack.id}`;
    const stamp = stampOf(row);
    const hit = opened.get(id);
    // The pack object is compared too: tests (and a hot reload) may bring another pack under the same id.
    if (hit && hit.stamp === stamp && hit.ready.pack === pack) {
      out.push(hit.ready);
      continue;
    }
    try {
      const config = openPackConfig(pack, tenantId, row);
      const ready = { pack, config, definition: definitionFor(pack, config) };
      opened.delete(id);
      opened.set(id, { stamp, ready });
      if (opened.size > OPENED_MAX) opened.delete(opened.keys().next().value as string);
      out.push(ready);
    } catch (err) {
      // Only the reason's kind is logged: messages may quote config values.
      log().warn(
        { tenantId, packId: pack.id, reason: (err as Error).name },
        "saved pack config is invalid; skipped",
      );
    }
  }
  return out;
}

export type PackSettingsChange = {
  enabled?: boolean;
  config?: Record<string, ConfigValue>;
  /** Plain text as typed by the admin; sealed here, never stored or returned as is. */
  secretsSet?: Record<string, string>;
  secretsClear?: string[];
};

/**
 * Creates or updates one pack's row with secrets sealed to (tenant, pack, field). Returns the keys whose
 * value changed (secret keys included, never values) for the audit log.
 */
export async function savePackSettings(
  tx: TenantTx,
  tenantId: string,
  packId: string,
  change: PackSettingsChange,
  userId: string | null,
  keys?: SecretKeys,
): Promise<{ changedFields: string[] }> {
  const sealed: PackConfigChange = { ...change, secretsSet: undefined };
  if (change.secretsSet) {
    sealed.secretsSet = Object.fromEntries(
      Object.entries(change.secretsSet).map(([k, plain]) => [
        k,
        sealSecret(plain, { tenantId, packId, key: k }, keys),
      ]),
    );
  }
  return savePackConfig(tx, tenantId, packId, sealed, userId);
}
