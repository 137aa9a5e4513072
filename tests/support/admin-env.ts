import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { DbHandle } from "@/lib/db/client";
import { freshDb, type TestDb } from "./db";

// Admin-side integration tests run the real guard, actions and queries against a fresh database. This file
// points the process-wide singletons (env, db handle) at the test world. Import it before anything that
// reads env(), and pair it with the mocks in ./admin-mocks (vi.mock must be written in the test file).

export const TEST_PUBLIC_URL = "http://localhost:3999";

export function setTestEnv(): void {
  process.env.MICHI_PUBLIC_URL = TEST_PUBLIC_URL;
  process.env.MICHI_AUTH_SECRET ??= "test-auth-secret-0123456789-abcdefghij";
  process.env.MICHI_SECRET_KEY ??= Buffer.alloc(32, 7).toString("base64");
  process.env.MICHI_DATA_DIR = mkdtempSync(path.join(tmpdir(), "michi-admin-test-"));
  process.env.MICHI_ALLOW_SIGNUP = "true";
  // A rating's event waits this long for its comment (60 s in production): long enough to show, short to wait.
  process.env.MICHI_WEBHOOK_FEEDBACK_SETTLE_SECONDS ??= "1";
  (globalThis as { __michiEnv?: unknown }).__michiEnv = undefined;
}

/** A fresh migrated database installed as the process's handle (what getDb() returns). */
export async function installTestDb(): Promise<TestDb> {
  setTestEnv();
  const t = await freshDb();
  (globalThis as { __michiDb?: Promise<DbHandle> }).__michiDb = Promise.resolve(t.handle);
  // Limiters are cached per process and bound to the store of the first handle; start clean.
  (globalThis as { __michiLimiters?: unknown }).__michiLimiters = undefined;
  return {
    ...t,
    async close() {
      (globalThis as { __michiDb?: unknown }).__michiDb = undefined;
      (globalThis as { __michiLimiters?: unknown }).__michiLimiters = undefined;
      await t.close();
    },
  };
}
