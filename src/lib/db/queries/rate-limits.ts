import "server-only";
import type { Pool } from "pg";

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
