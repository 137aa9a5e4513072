import { getDb } from "./db";
import type { DbHandle } from "./db/client";
import { audit } from "./db/queries/audit";
import { purgeBatch, tenantsWithExpired } from "./db/queries/retention";
import { env } from "./env";
import { registerJob } from "./jobs";
import { log } from "./log";

// The retention purge: at start-up and every MICHI_PURGE_INTERVAL_MIN minutes, each tenant's conversations
// older than its retention_days are deleted in batches. Several instances may run it at the same moment; a
// Postgres advisory lock lets exactly one of them work and the others skip this round.

// Any fixed number works; it only has to be the same for every instance (and differ from the migrator's).
export const PURGE_LOCK = 4_242_007;
export const PURGE_BATCH = 500;

export type PurgeResult = {
  /** True when another run (here or in another instance) held the lock, so this one did nothing. */
  skipped: boolean;
  deleted: number;
  batches: number;
  tenants: { tenantId: string; deleted: number }[];
};

const g = globalThis as unknown as { __michiPurgeRunning?: boolean };

/**
 * Runs `fn` while holding the purge lock, or returns null at once when someone else holds it. On Postgres the
 * lock is a session-level advisory lock on a connection kept for the whole run; PGlite is one process with
 * one connection, where an in-process flag is the lock (the flag also stops an interval tick from overlapping
 * a long run on Postgres).
 */
async function withPurgeLock<T>(db: DbHandle, fn: () => Promise<T>): Promise<T | null> {
  if (g.__michiPurgeRunning) return null;
  g.__michiPurgeRunning = true;
  try {
    if (db.raw.kind === "pglite") return await fn();
    const client = await db.raw.pool.connect();
    try {
      const { rows } = await client.query<{ ok: boolean }>("select pg_try_advisory_lock($1) as ok", [
        PURGE_LOCK,
      ]);
      if (!rows[0]?.ok) return null;
      try {
        return await fn();
      } finally {
        await client.query("select pg_advisory_unlock($1)", [PURGE_LOCK]);
      }
    } finally {
      client.release();
    }
  } finally {
    g.__michiPurgeRunning = false;
  }
}

/** One purge over every tenant. A failure for one tenant is logged and the others still run. */
export async function purgeExpiredConversations(
  db: DbHandle,
  opts: { now?: Date; batchSize?: number } = {},
): Promise<PurgeResult> {
  const now = opts.now ?? new Date();
  const batchSize = Math.max(1, opts.batchSize ?? PURGE_BATCH);
  const result = await withPurgeLock(db, async () => {
    const out: PurgeResult = { skipped: false, deleted: 0, batches: 0, tenants: [] };
    for (const t of await tenantsWithExpired(db.platform, now)) {
      let deleted = 0;
      try {
        for (;;) {
          const n = await db.forTenant(t.id, (tx) => purgeBatch(tx, t.id, t.retentionDays, now, batchSize));
          out.batches++;
          deleted += n;
          if (n < batchSize) break;
        }
        if (deleted > 0) {
          // One summary entry per tenant and run; the audit log itself is never purged.
          await db.forTenant(t.id, (tx) =>
            audit(tx, {
              tenantId: t.id,
              actor: null,
              action: "retention.purged",
              details: { conversations: deleted, retentionDays: t.retentionDays },
            }),
          );
        }
      } catch (err) {
        log().error({ err, tenantId: t.id }, "retention purge failed for a tenant");
      }
      if (deleted > 0) {
        out.tenants.push({ tenantId: t.id, deleted });
        out.deleted += deleted;
      }
    }
    return out;
  });
  return result ?? { skipped: true, deleted: 0, batches: 0, tenants: [] };
}

registerJob({
  name: "retention-purge",
  // Read when the jobs start (after boot parsed the environment), not when this module is imported.
  get everyMs() {
    return env().MICHI_PURGE_INTERVAL_MIN * 60_000;
  },
  async run() {
    try {
      const result = await purgeExpiredConversations(await getDb());
      if (result.deleted > 0)
        log().info({ deleted: result.deleted, tenants: result.tenants }, "retention purge");
    } catch (err) {
      log().error({ err }, "retention purge failed");
    }
  },
});
