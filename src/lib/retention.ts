import "server-only";
import { getDb } from "./db";
import type { DbHandle } from "./db/client";
import { forTenantAudited } from "./db/queries/audit";
import { purgeBatch, tenantsWithExpired, tryPurgeLock } from "./db/queries/retention";
import { type KindPurge, purgeKinds, tenantsForKindPurge } from "./db/queries/retention-kinds";
import { env } from "./env";
import { registerJob } from "./jobs";
import { log } from "./log";
import { forgetOldMail } from "./mail/outbox";
import { processSlot } from "./process-slot";

// The retention purge: at start-up and every MICHI_PURGE_INTERVAL_MIN minutes, each tenant's conversations
// older than its retention_days are deleted in batches. Several instances may run it at the same moment: each
// batch's transaction first takes a Postgres advisory lock with pg_try_advisory_xact_lock, and a run that
// finds it taken stops for this round, so no two instances delete at the same time. The lock lives in the
// batch's own transaction rather than on a connection held for the whole run, so a pool of one connection
// (DATABASE_POOL_MAX=1) cannot deadlock against itself.

export { PURGE_LOCK } from "./db/queries/retention";
export const PURGE_BATCH = 500;

export type PurgeResult = {
  /** True when another run (here or in another instance) held the lock, so this one stopped early. */
  skipped: boolean;
  deleted: number;
  batches: number;
  tenants: { tenantId: string; deleted: number }[];
};

// An interval tick must not start a second run in this process while a long one is still going; PGlite has a
// single connection, where the advisory lock cannot tell two runs of the same process apart.
const purgeRunning = processSlot<boolean>("PurgeRunning");

class LockTaken extends Error {}

/** One purge over every tenant. A failure for one tenant is logged and the others still run. */
export async function purgeExpiredConversations(
  db: DbHandle,
  opts: { now?: Date; batchSize?: number } = {},
): Promise<PurgeResult> {
  const out: PurgeResult = { skipped: false, deleted: 0, batches: 0, tenants: [] };
  if (purgeRunning.get()) return { ...out, skipped: true };
  purgeRunning.set(true);
  const now = opts.now ?? new Date();
  const batchSize = Math.max(1, opts.batchSize ?? PURGE_BATCH);
  try {
    for (const t of await tenantsWithExpired(db.platform, now)) {
      let deleted = 0;
      try {
        for (;;) {
          const n = await db.forTenant(t.id, async (tx) => {
            if (!(await tryPurgeLock(tx))) throw new LockTaken();
            return purgeBatch(tx, t.id, t.retentionDays, now, batchSize);
          });
          out.batches++;
          deleted += n;
          if (n < batchSize) break;
        }
      } catch (err) {
        if (err instanceof LockTaken) out.skipped = true;
        else log().error({ err, tenantId: t.id }, "retention purge failed for a tenant");
      }
      if (deleted > 0) {
        // One summary entry per tenant and run; the audit log itself is never purged.
        await forTenantAudited(db, t.id, null, (_tx, record) =>
          record("retention.purged", { details: { conversations: deleted, retentionDays: t.retentionDays } }),
        ).catch((err) => log().error({ err, tenantId: t.id }, "could not record the retention purge"));
        out.tenants.push({ tenantId: t.id, deleted });
        out.deleted += deleted;
      }
      if (out.skipped) break; // another instance is purging; it will finish this round
    }
    return out;
  } finally {
    purgeRunning.set(false);
  }
}

/**
 * The other kinds' retention, after the conversations': contact requests and internal notes past their own
 * days, and the channels' inbound log past the conversations' days (retention-kinds.ts). One transaction per
 * tenant under the same advisory lock; an entry in the audit log when a request or note went.
 */
export async function purgeExpiredKinds(db: DbHandle, now = new Date()): Promise<KindPurge> {
  const total: KindPurge = { leads: 0, notes: 0, inbound: 0 };
  for (const t of await tenantsForKindPurge(db.platform)) {
    try {
      const n = await db.forTenant(t.id, async (tx) =>
        (await tryPurgeLock(tx)) ? purgeKinds(tx, t, now) : null,
      );
      if (!n) return total; // another instance is purging
      total.leads += n.leads;
      total.notes += n.notes;
      total.inbound += n.inbound;
      if (n.leads + n.notes > 0)
        await forTenantAudited(db, t.id, null, (_tx, record) =>
          record("retention.kinds_purged", {
            details: {
              leads: n.leads,
              notes: n.notes,
              leadDays: t.leadRetentionDays,
              noteDays: t.noteRetentionDays,
            },
          }),
        );
    } catch (err) {
      log().error({ err, tenantId: t.id }, "retention purge of requests and notes failed for a tenant");
    }
  }
  return total;
}

registerJob({
  name: "retention-purge",
  // Read when the jobs start (after boot parsed the environment), not when this module is imported.
  get everyMs() {
    return env().MICHI_PURGE_INTERVAL_MIN * 60_000;
  },
  async run() {
    try {
      const db = await getDb();
      const result = await purgeExpiredConversations(db);
      if (result.deleted > 0)
        log().info({ deleted: result.deleted, tenants: result.tenants }, "retention purge");
      const kinds = await purgeExpiredKinds(db);
      if (kinds.leads + kinds.notes + kinds.inbound > 0) log().info(kinds, "retention purge of other kinds");
      const mails = await forgetOldMail(db);
      if (mails > 0) log().info({ deleted: mails }, "outbox purge");
    } catch (err) {
      log().error({ err }, "retention purge failed");
    }
  },
});
