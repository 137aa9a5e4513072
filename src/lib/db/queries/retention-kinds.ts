import "server-only";
import { and, eq, lt, ne, sql } from "drizzle-orm";
import type { Db, TenantTx } from "../client";
import { rowsOf } from "../client";
import { channelInbound, leads, liveEvents, tenants } from "../schema";

// Retention per kind (drizzle/0052): contact requests outlive their conversation (a lead is kept while the
// business works on it), the team's internal notes may go sooner than the conversation they are on, and the
// channels' inbound log (a hash of the person and, for a while, their number) goes with the conversations'
// retention. Conversations themselves and everything hanging from them are purged by retention.ts.

export type KindRetention = {
  id: string;
  retentionDays: number;
  leadRetentionDays: number | null;
  noteRetentionDays: number | null;
};

/** Platform path: every tenant with its retentions (tenants are few; each purge is one small transaction). */
export async function tenantsForKindPurge(db: Db): Promise<KindRetention[]> {
  return rowsOf(
    db,
    sql`select id, retention_days as "retentionDays", lead_retention_days as "leadRetentionDays",
               note_retention_days as "noteRetentionDays"
          from tenants order by id`,
  );
}

const before = (now: Date, days: number) => new Date(now.getTime() - days * 86_400_000);

export type KindPurge = { leads: number; notes: number; inbound: number };

/** Tenant path: deletes what is older than each kind's retention; how many of each went. */
export async function purgeKinds(tx: TenantTx, t: KindRetention, now: Date): Promise<KindPurge> {
  const out: KindPurge = { leads: 0, notes: 0, inbound: 0 };
  if (t.leadRetentionDays !== null) {
    const gone = await tx
      .delete(leads)
      .where(and(eq(leads.tenantId, t.id), lt(leads.createdAt, before(now, t.leadRetentionDays))))
      .returning({ id: leads.id });
    out.leads = gone.length;
  }
  if (t.noteRetentionDays !== null) {
    const gone = await tx
      .delete(liveEvents)
      .where(
        and(
          eq(liveEvents.tenantId, t.id),
          eq(liveEvents.kind, "note"),
          lt(liveEvents.createdAt, before(now, t.noteRetentionDays)),
        ),
      )
      .returning({ seq: liveEvents.seq });
    out.notes = gone.length;
  }
  const inbound = await tx
    .delete(channelInbound)
    .where(
      and(
        eq(channelInbound.tenantId, t.id),
        ne(channelInbound.status, "pending"),
        lt(channelInbound.receivedAt, before(now, t.retentionDays)),
      ),
    )
    .returning({ id: channelInbound.id });
  out.inbound = inbound.length;
  return out;
}

/** Tenant path: the contact request and note retentions; returns the previous ones, or null without a row. */
export async function setKindRetention(
  tx: TenantTx,
  tenantId: string,
  days: { leadRetentionDays: number | null; noteRetentionDays: number | null },
): Promise<{ leadRetentionDays: number | null; noteRetentionDays: number | null } | null> {
  const [row] = await tx
    .select({ leadRetentionDays: tenants.leadRetentionDays, noteRetentionDays: tenants.noteRetentionDays })
    .from(tenants)
    .where(eq(tenants.id, tenantId))
    .limit(1);
  if (!row) return null;
  await tx
    .update(tenants)
    .set({ ...days, updatedAt: new Date() })
    .where(eq(tenants.id, tenantId));
  return row;
}
