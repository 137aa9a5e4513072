import "server-only";
import { or, sql } from "drizzle-orm";
import type { Pool } from "pg";
import type { Db } from "../client";
import { rateLimits } from "../schema";

// Platform data: rate-limiter-flexible's counters (schema/core.ts, rate_limits), taken here for a request that
// needs several limiters at once (src/lib/security/rate-limit.ts, takeAll). The arithmetic is the SQL function
// michi_take_rate_points (src/lib/db/sql/turn-functions.sql), the same one the chat's opening statement calls.

/**
 * Adds each row's points to its key in one statement and answers the longest wait in seconds of a key now over
 * its limit, or 0. Keys must be distinct, sorted by the caller so concurrent statements lock shared rows in the
 * same order.
 */
export async function takePoints(
  pool: Pool,
  rows: { key: string; points: number; expire: number | null; limit: number }[],
  now: number,
): Promise<number> {
  const res = await pool.query<{ wait: number }>({
    name: "michi-rl-take-all",
    text: "select michi_take_rate_points($1::text[], $2::int[], $3::bigint[], $4::int[], $5::bigint) as wait",
    values: [
      rows.map((r) => r.key),
      rows.map((r) => r.points),
      rows.map((r) => r.expire),
      rows.map((r) => r.limit),
      now,
    ],
  });
  return res.rows[0]?.wait ?? 0;
}

/**
 * Platform path: an erased visitor's per-visitor counters (a minute's worth, each limiter's key ending in
 * "<tenant>:<visitor id>"), so their id is gone from the database at once rather than when they would expire.
 */
export async function forgetVisitorCounters(
  db: Db,
  tenantId: string,
  visitorIds: readonly string[],
): Promise<void> {
  const suffixes = visitorIds.map((v) => `:${tenantId}:${v}`);
  if (suffixes.length === 0) return;
  await db
    .delete(rateLimits)
    .where(or(...suffixes.map((s) => sql`right(${rateLimits.key}, ${s.length}) = ${s}`)));
}
