import "server-only";
import path from "node:path";
import { env } from "../env";
import { processSlot } from "../process-slot";
import { createDb, type DbHandle } from "./client";

export type { DbHandle } from "./client";

// One handle per process. Next may load this module in several bundles, so the handle lives on globalThis;
// for PGlite that is essential, since only one instance may open a data directory.
const handle = processSlot<Promise<DbHandle>>("Db");

export function getDb(): Promise<DbHandle> {
  return handle.get() ?? openDb();
}

function openDb(): Promise<DbHandle> {
  const e = env();
  const pending = e.DATABASE_URL
    ? createDb({ url: e.DATABASE_URL, poolMax: e.DATABASE_POOL_MAX })
    : createDb({ dataDir: path.join(e.MICHI_DATA_DIR, "pglite") });
  handle.set(pending);
  pending.catch(() => {
    if (handle.get() === pending) handle.set(undefined);
  });
  return pending;
}

export async function closeDb(): Promise<void> {
  const pending = handle.get();
  handle.set(undefined);
  if (pending) await (await pending).close();
}
