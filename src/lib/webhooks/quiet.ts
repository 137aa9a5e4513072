import "server-only";
import type { DbHandle } from "../db/client";
import {
  conversationsQuietBetween,
  deleteOldDeliveries,
  tenantSlug,
  tenantsSubscribedTo,
  tenantsWithOldDeliveries,
} from "../db/queries/webhooks";
import { env } from "../env";
import { registerJob } from "../jobs";
import { log } from "../log";
import { visitorField } from "./events";
import { publishEvent } from "./publish";

// conversation.finished: a conversation is over when nobody wrote in it for the quiet period. A sweep looks
// for conversations whose last activity fell between (quiet period + one day) and (quiet period) ago, so a
// sweep missed while the platform was down still announces them. The dedupe key holds the last activity's
// time: several instances sweeping at once, or the next sweep, add nothing; a visitor who comes back and goes
// quiet again makes a new event.

const LOOKBACK_MS = 24 * 60 * 60 * 1000;

export type SweepResult = { tenants: number; published: number };

export async function sweepQuietConversations(
  db: DbHandle,
  opts: { now?: Date; quietMs?: number } = {},
): Promise<SweepResult> {
  const now = opts.now ?? new Date();
  const quietMs = opts.quietMs ?? env().MICHI_WEBHOOK_QUIET_SECONDS * 1000;
  const to = new Date(now.getTime() - quietMs);
  const from = new Date(to.getTime() - LOOKBACK_MS);
  const tenantIds = await tenantsSubscribedTo(db.platform, "conversation.finished");
  let published = 0;
  for (const tenantId of tenantIds) {
    try {
      published += await db.forTenant(tenantId, async (tx) => {
        const quiet = await conversationsQuietBetween(tx, from, to);
        if (quiet.length === 0) return 0;
        const slug = await tenantSlug(tx, tenantId);
        let n = 0;
        for (const c of quiet) {
          const r = await publishEvent(tx, {
            tenantId,
            type: "conversation.finished",
            dedupeKey: `conversation:${c.id}:${c.lastActivityAt.toISOString()}`,
            // It finished when the quiet period after its last message ran out.
            occurredAt: new Date(c.lastActivityAt.getTime() + quietMs),
            data: {
              conversation: {
                id: c.id,
                startedAt: c.startedAt.toISOString(),
                lastActivityAt: c.lastActivityAt.toISOString(),
                messageCount: c.messageCount,
                adminUrl: slug ? `${env().MICHI_PUBLIC_URL}/admin/${slug}/conversations/${c.id}` : undefined,
              },
              ...visitorField(c.verifiedVisitor),
            },
          });
          n += r.deliveries;
        }
        return n;
      });
    } catch (err) {
      log().warn({ tenantId, err: (err as Error).message }, "quiet-conversation sweep failed for a tenant");
    }
  }
  return { tenants: tenantIds.length, published };
}

/**
 * The delivery log keeps 30 days: long enough to redeliver after a receiver's outage, short enough that the
 * lead details in old payloads do not outlive their use.
 */
export const DELIVERY_LOG_DAYS = 30;

export async function pruneDeliveryLog(db: DbHandle, now = new Date()): Promise<number> {
  const before = new Date(now.getTime() - DELIVERY_LOG_DAYS * 24 * 60 * 60 * 1000);
  let deleted = 0;
  for (const tenantId of await tenantsWithOldDeliveries(db.platform, before)) {
    deleted += await db.forTenant(tenantId, (tx) => deleteOldDeliveries(tx, before));
  }
  return deleted;
}

/** Registers the sweep with the process's periodic jobs (boot); it runs every half quiet period, at most a minute apart. */
export function registerQuietSweep(db: DbHandle): void {
  const quietMs = env().MICHI_WEBHOOK_QUIET_SECONDS * 1000;
  registerJob({
    name: "webhook-quiet-sweep",
    everyMs: Math.max(1000, Math.min(60_000, Math.floor(quietMs / 2))),
    run: async () => {
      await sweepQuietConversations(db, { quietMs });
    },
  });
  registerJob({
    name: "webhook-log-prune",
    everyMs: 60 * 60 * 1000,
    run: async () => {
      await pruneDeliveryLog(db);
    },
  });
}
