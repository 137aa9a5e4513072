import "server-only";
import type { Pool } from "pg";

// Platform data: rate-limiter-flexible's counters (schema/core.ts, rate_limits), written here for the chat's
// hot path, which takes several limiters in one statement (src/lib/security/rate-limit.ts, takeAll).

export type PointsTaken = { key: string; points: number; expire: number | null };

/**
 * Adds `points` to every key in one statement, with the arithmetic of the library's own upsert
 * (lib/RateLimiterPostgres.js, _upsert): a key whose window has ended starts over with a new expiry. Keys must
 * be distinct; sorted by the caller so concurrent statements lock shared rows in the same order.
 */
export async function takePoints(
  pool: Pool,
  rows: { key: string; points: number; expire: number | null }[],
  now: number,
): Promise<PointsTaken[]> {
  const res = await pool.query<{ key: string; points: number; expire: string | null }>({
    name: "michi-rl-take-all",
    text: `insert into rate_limits as r (key, points, expire)
           select * from unnest($1::varchar[], $2::int[], $3::bigint[])
           on conflict (key) do update set
             points = case when r.expire <= $4 then excluded.points else r.points + excluded.points end,
             expire = case when r.expire <= $4 then excluded.expire else r.expire end
           returning key, points, expire`,
    values: [rows.map((r) => r.key), rows.map((r) => r.points), rows.map((r) => r.expire), now],
  });
  return res.rows.map((r) => ({
    key: r.key,
    points: r.points,
    expire: r.expire === null ? null : Number(r.expire),
  }));
}
