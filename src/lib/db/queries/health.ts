import "server-only";
import { sql } from "drizzle-orm";
import type { ToolOutcome } from "@/shared/tool-run";
import { type Db, rowsOf, type TenantTx } from "../client";
import { tenantNotices } from "../schema";

// What the health of a business's set-up is read from: its packs' recent runs (tool_runs, written by every
// turn), and the notices already sent about it.

export type RecentRun = { packId: string; outcome: ToolOutcome; result: string; createdAt: Date };

/** The newest `perPack` runs of each pack within `days`, newest first. */
export async function recentPackRuns(tx: TenantTx, perPack = 10, days = 7): Promise<RecentRun[]> {
  const rows = await rowsOf<RecentRun & { createdAt: Date | string }>(
    tx,
    sql`select "packId", outcome, result, "createdAt" from (
          select pack_id as "packId", outcome, left(result, 300) as result, created_at as "createdAt",
                 row_number() over (partition by pack_id order by created_at desc, id desc) as n
          from tool_runs
          where created_at > now() - make_interval(days => ${days}::int)
        ) r
        where n <= ${perPack}::int
        order by "packId", "createdAt" desc`,
  );
  return rows.map((r) => ({ ...r, createdAt: new Date(r.createdAt) }));
}

/** Platform path: the businesses with a failed pack run since `since` (the notice job then reads each one). */
export async function tenantsWithFailedRuns(db: Db, since: Date): Promise<string[]> {
  const rows = await rowsOf<{ id: string }>(
    db,
    sql`select distinct tenant_id as id from tool_runs
        where created_at > ${since.toISOString()}::timestamptz and outcome in ('error', 'timeout')`,
  );
  return rows.map((r) => r.id);
}

/** Records a notice; true when it is new (so the caller sends it), false when it was sent already. */
export async function recordNotice(
  tx: TenantTx,
  tenantId: string,
  kind: "pack_failing" | "budget",
  key: string,
): Promise<boolean> {
  const rows = await tx
    .insert(tenantNotices)
    .values({ tenantId, kind, key })
    .onConflictDoNothing()
    .returning({ key: tenantNotices.key });
  return rows.length > 0;
}
