import "server-only";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { DbHandle } from "./client";

// Any fixed number works; it only has to be the same for every instance of the platform.
const MIGRATION_LOCK = 4_242_001;

export function migrationsFolder(): string {
  const candidates = [
    path.join(process.cwd(), "drizzle"),
    path.resolve(import.meta.dirname ?? ".", "../../../drizzle"),
  ];
  const found = candidates.find((p) => existsSync(path.join(p, "meta", "_journal.json")));
  if (!found) throw new Error(`Migrations folder not found (looked in ${candidates.join(", ")})`);
  return found;
}

export function expectedMigrationCount(folder = migrationsFolder()): number {
  const journal = JSON.parse(readFileSync(path.join(folder, "meta", "_journal.json"), "utf8")) as {
    entries: unknown[];
  };
  return journal.entries.length;
}

const COUNT_APPLIED = `select count(*)::int as n from drizzle.__drizzle_migrations`;

/**
 * Applies pending migrations under a Postgres advisory lock, so instances starting together migrate once:
 * the first takes the lock and migrates, the others wait, then find nothing left to do.
 * Returns how many migrations this call applied.
 */
export async function migrate(handle: DbHandle): Promise<number> {
  const folder = migrationsFolder();
  const { drizzle } = await import("drizzle-orm/node-postgres");
  const { migrate: run } = await import("drizzle-orm/node-postgres/migrator");
  const client = await handle.raw.pool.connect();
  try {
    // Nothing pending (the usual restart, or migrations already run by `npm run db:migrate` through a direct
    // connection): skip the session-level lock, which a transaction-mode pooler such as PgBouncer cannot hold.
    const applied = await appliedCount((q) => client.query<{ n: number }>(q).then((r) => r.rows));
    if (applied >= expectedMigrationCount(folder)) return 0;
    await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK]);
    try {
      const before = await appliedCount((q) => client.query<{ n: number }>(q).then((r) => r.rows));
      await run(drizzle(client), { migrationsFolder: folder });
      const applied =
        (await appliedCount((q) => client.query<{ n: number }>(q).then((r) => r.rows))) - before;
      if (applied > 0) await client.query("select michi_secure_tenant_tables()");
      return applied;
    } finally {
      await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
}

async function appliedCount(query: (q: string) => Promise<{ n: number }[]>): Promise<number> {
  try {
    const rows = await query(COUNT_APPLIED);
    return rows[0]?.n ?? 0;
  } catch {
    return 0; // first start: the bookkeeping table does not exist yet
  }
}

/** For /api/ready: true when every migration shipped with this build has been applied. */
export async function migrationsApplied(handle: DbHandle): Promise<boolean> {
  const expected = expectedMigrationCount();
  const { rows } = await handle.raw.pool.query<{ n: number }>(COUNT_APPLIED);
  return (rows[0]?.n ?? 0) >= expected;
}
