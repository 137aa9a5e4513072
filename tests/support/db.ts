import { randomBytes } from "node:crypto";
import pg from "pg";
import { createDb, type DbHandle } from "@/lib/db/client";
import { migrate } from "@/lib/db/migrate";

export type TestDb = { handle: DbHandle; url: string | null; close(): Promise<void> };

/** Postgres server URL pointing at another database on the same server. */
export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Creates an empty database on the server of DATABASE_URL and returns its URL and a dropper. */
export async function createEmptyDatabase(
  prefix = "michi_t",
): Promise<{ url: string; drop(): Promise<void> }> {
  const base = process.env.DATABASE_URL;
  if (!base) throw new Error("createEmptyDatabase needs DATABASE_URL");
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  await admin.end();
  return {
    url: withDatabase(base, name),
    async drop() {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`drop database if exists "${name}" with (force)`);
      await c.end();
    },
  };
}

/**
 * A migrated database of its own for one test file: a fresh database on the server of DATABASE_URL when it
 * is set (CI), otherwise an in-memory PGlite. The same tests run against both.
 */
export async function freshDb(): Promise<TestDb> {
  if (process.env.DATABASE_URL) {
    const created = await createEmptyDatabase();
    const handle = await createDb({ url: created.url, poolMax: 5 });
    await migrate(handle);
    return {
      handle,
      url: created.url,
      async close() {
        await handle.close();
        await created.drop();
      },
    };
  }
  const handle = await createDb({ dataDir: null });
  await migrate(handle);
  return { handle, url: null, close: () => handle.close() };
}
