import "server-only";
import { sql } from "drizzle-orm";
import { rowsOf, type TenantTx } from "../client";

// Usage's figures for conversations a person handled (drizzle/0028): how long visitors waited for a person's
// first message, and how long from asking for a person until the person's part ended (hand back or close).

export type LiveMetrics = {
  /** Conversations in the period in which a visitor asked for a person. */
  requested: number;
  /** Of those, answered by a person. */
  answered: number;
  firstResponseMedianSec: number | null;
  closed: number;
  closeMedianSec: number | null;
};

export async function liveMetrics(
  tx: TenantTx,
  tenantId: string,
  range: { since: Date; until: Date },
): Promise<LiveMetrics> {
  const [row] = await rowsOf<{
    requested: number;
    answered: number;
    first: number | null;
    closed: number;
    close: number | null;
  }>(
    tx,
    sql`select count(*)::int as requested,
          count(live_first_response_at)::int as answered,
          percentile_cont(0.5) within group (order by extract(epoch from live_first_response_at - live_requested_at))
            filter (where live_first_response_at is not null) as first,
          count(live_ended_at) filter (where live_first_response_at is not null)::int as closed,
          percentile_cont(0.5) within group (order by extract(epoch from live_ended_at - live_requested_at))
            filter (where live_ended_at is not null and live_first_response_at is not null) as close
        from conversations
        where tenant_id = ${tenantId} and live_requested_at >= ${range.since.toISOString()}::timestamptz
          and live_requested_at < ${range.until.toISOString()}::timestamptz`,
  );
  const num = (v: number | string | null | undefined) =>
    v === null || v === undefined ? null : Math.round(Number(v));
  return {
    requested: row?.requested ?? 0,
    answered: row?.answered ?? 0,
    firstResponseMedianSec: num(row?.first),
    closed: row?.closed ?? 0,
    closeMedianSec: num(row?.close),
  };
}
