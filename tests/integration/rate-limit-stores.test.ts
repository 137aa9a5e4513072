import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "@/lib/db/client";
import { limiter, takeAll } from "@/lib/security/rate-limit";
import { freshDb, type TestDb } from "../support/db";

// The limiter factory picks its store from the environment: Redis when REDIS_URL is set, else Postgres when the
// database is Postgres (shared by every instance), else memory. Each store must count, block and report the
// wait, and the shared ones must share counts between separate limiter instances (two app instances).

type G = {
  __michiEnv?: unknown;
  __michiDb?: unknown;
  __michiLimiters?: Map<string, unknown>;
  __michiRedis?: unknown;
  __michiRedisReady?: unknown;
};
const g = globalThis as unknown as G;
const saved = { ...process.env };
let t: TestDb;

beforeAll(async () => {
  t = await freshDb();
});
afterAll(async () => {
  await t?.close();
});
afterEach(async () => {
  const redis = g.__michiRedis as { quit?: () => Promise<unknown> } | undefined;
  await redis?.quit?.().catch(() => {});
  process.env = { ...saved };
  g.__michiEnv = undefined;
  g.__michiDb = undefined;
  g.__michiLimiters = undefined;
  g.__michiRedis = undefined;
  g.__michiRedisReady = undefined;
});

function chooseStore(over: Record<string, string | undefined>) {
  process.env = { ...saved, NODE_ENV: "test", ...over };
  g.__michiEnv = undefined;
  g.__michiLimiters = undefined;
  // The database handle the factory sees: this file's fresh database (Postgres on CI, PGlite otherwise).
  g.__michiDb = Promise.resolve(t.handle);
}

/** Forgets the process-local limiter objects, as a second app instance would not have them. */
function newInstance() {
  g.__michiLimiters = undefined;
}

async function behaves(shared: boolean) {
  const spec = {
    keyPrefix: `t_${randomBytes(4).toString("hex")}`,
    points: 3,
    durationSec: 60,
    blockDurationSec: 120,
  };
  const l = limiter(spec);
  const results = [await l.take("k"), await l.take("k")];
  if (shared) newInstance();
  const other = limiter(spec);
  results.push(await other.take("k"), await other.take("k"));
  // Three allowed in all; the fourth waits out the block, whichever instance asks.
  expect(results.slice(0, 3)).toEqual([null, null, null]);
  expect(results[3]).toBeGreaterThan(60);
  expect(await other.blockedFor("k")).toBeGreaterThan(60);
  expect(await other.take("another-key")).toBeNull();
  await other.reset("k");
  expect(await other.take("k")).toBeNull();
}

describe("rate-limit stores", () => {
  it("uses Postgres when the database is Postgres, counting across instances", async () => {
    if (t.handle.kind !== "pg") return; // PGlite runs in one process: memory is the store there
    chooseStore({ REDIS_URL: undefined });
    await behaves(true);
  });

  it("on Postgres, limiters created at the same moment all work: the table comes from the migrations", async () => {
    if (t.handle.kind !== "pg") return;
    const [row] = await rowsOf<{ t: string | null }>(
      t.handle.platform,
      sql`select to_regclass('rate_limits')::text as t`,
    );
    expect(row?.t).toBe("rate_limits");
    chooseStore({ REDIS_URL: undefined });
    const tag = randomBytes(4).toString("hex");
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        limiter({ keyPrefix: `c${i}_${tag}`, points: 1, durationSec: 60 }).take("k"),
      ),
    );
    expect(results).toEqual(Array(8).fill(null));
  });

  it("on Postgres, takeAll takes several limiters in one statement, counting with the library's own", async () => {
    if (t.handle.kind !== "pg") return;
    chooseStore({ REDIS_URL: undefined });
    const tag = randomBytes(4).toString("hex");
    const visitor = { keyPrefix: `v_${tag}`, points: 2, durationSec: 60 };
    const tenant = { keyPrefix: `t_${tag}`, points: 5, durationSec: 60 };
    const both = () =>
      takeAll([
        { spec: visitor, key: "k" },
        { spec: tenant, key: "k" },
      ]);
    expect(await both()).toBeNull();
    // The library's own limiter on the same key sees that point and takes the last one.
    expect(await limiter(visitor).take("k")).toBeNull();
    const wait = await both();
    expect(wait).toBeGreaterThan(50);
    expect(wait).toBeLessThanOrEqual(60);
    // The tenant counter went up with each call, refused or not: 2 of its 5 points are gone.
    expect(await limiter(tenant).take("k", 3)).toBeNull();
    expect(await limiter(tenant).take("k")).toBeGreaterThan(0);
  });

  it("uses memory on the embedded database", async () => {
    if (t.handle.kind !== "pglite") return;
    chooseStore({ REDIS_URL: undefined });
    await behaves(false);
  });

  // CI sets MICHI_TEST_REDIS_URL when a Redis answers; the rest of the suite keeps its default stores.
  it.skipIf(!process.env.MICHI_TEST_REDIS_URL)(
    "uses Redis when REDIS_URL is set, counting across instances",
    async () => {
      chooseStore({ REDIS_URL: process.env.MICHI_TEST_REDIS_URL });
      await behaves(true);
      expect(g.__michiRedis).toBeTruthy();
    },
  );
});
