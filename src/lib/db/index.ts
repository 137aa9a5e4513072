import "server-only";
import path from "node:path";
import { env } from "../env";
import { createDb, type DbHandle } from "./client";

export type { DbHandle } from "./client";

// One handle per process. Next may load this module in several bundles, so the handle lives on globalThis;
// for PGlite that is essential, since only one instance may open a data directory.
const g = globalThis as unknown as { __michiDb?: Promise<DbHandle> };

export function getDb(): Promise<DbHandle> {
  if (!g.__michiDb) {
    const e = env();
    const pending = e.DATABASE_URL
      ? createDb({ url: e.DATABASE_URL, poolMax: e.DATABASE_POOL_MAX })
      : createDb({ dataDir: path.join(e.MICHI_DATA_DIR, "pglite") });
    g.__michiDb = pending;
    pending.catch(() => {
      if (g.__michiDb === pending) g.__michiDb = undefined;
    });
  }
  return g.__michiDb;
}

export async function closeDb(): Promise<void> {
  const pending = g.__michiDb;
  g.__michiDb = undefined;
  if (pending) await (await pending).close();
}
