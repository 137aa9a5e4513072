import "server-only";
import {
  type IRateLimiterStoreOptions,
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  type RateLimiterRes,
} from "rate-limiter-flexible";
import { getDb } from "../db";
import { takePoints } from "../db/queries/rate-limits";
import { env } from "../env";
import { processSlot } from "../process-slot";

// One factory for every limiter in the platform, so all of them share the same store: Redis when REDIS_URL
// is set, Postgres on Postgres (shared by every instance), memory on the embedded database (one process).

export type LimiterSpec = {
  keyPrefix: string;
  points: number;
  durationSec: number;
  blockDurationSec?: number;
};
export type Limiter = {
  /** Consumes `cost` points for `key`; returns null when allowed, or the seconds to wait when refused. */
  take(key: string, cost?: number): Promise<number | null>;
  /** Seconds the key is still blocked, without consuming (0 when free). */
  blockedFor(key: string): Promise<number>;
  reset(key: string): Promise<void>;
};

const limiters = processSlot<Map<string, Promise<RateLimiterAbstract>>>("Limiters");
/** The connected client, for tests that close it; redisReady is what callers wait on. */
const redis = processSlot<unknown>("Redis");
const redisReady = processSlot<Promise<unknown>>("RedisReady");

/**
 * One Redis client per process, connected before its first use: without an offline queue (so a Redis outage
 * fails fast instead of piling up requests) a command sent while still connecting would fail.
 */
async function redisClient(url: string): Promise<unknown> {
  if (!redisReady.get()) {
    const pending = import("ioredis").then(async ({ Redis }) => {
      const client = new Redis(url, {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        lazyConnect: true,
      });
      client.on("error", () => {}); // reported through the failing commands; the insurance limiter takes over
      await client.connect();
      redis.set(client);
      return client;
    });
    redisReady.set(pending);
    pending.catch(() => {
      if (redisReady.get() === pending) redisReady.set(undefined);
    });
  }
  return redisReady.get();
}

async function storeOptions(): Promise<
  { kind: "memory" } | { kind: "redis"; client: unknown } | { kind: "postgres"; client: unknown }
> {
  const e = env();
  if (e.REDIS_URL) return { kind: "redis", client: await redisClient(e.REDIS_URL) };
  const db = await getDb();
  if (db.raw.kind === "pg") return { kind: "postgres", client: db.raw.pool };
  return { kind: "memory" };
}

async function build(spec: LimiterSpec): Promise<RateLimiterAbstract> {
  const base = {
    keyPrefix: spec.keyPrefix,
    points: spec.points,
    duration: spec.durationSec,
    blockDuration: spec.blockDurationSec ?? 0,
  };
  const store = await storeOptions();
  if (store.kind === "redis") {
    // While Redis is unreachable each instance keeps limiting on its own rather than failing every request.
    const insuranceLimiter = new RateLimiterMemory(base);
    return new RateLimiterRedis({
      ...base,
      storeClient: store.client,
      insuranceLimiter,
    } as IRateLimiterStoreOptions);
  }
  if (store.kind === "postgres") {
    // The table comes from a migration (schema/core.ts): left to the library, limiters built at the same moment
    // raced on CREATE TABLE and one request failed.
    return new RateLimiterPostgres({
      ...base,
      storeClient: store.client,
      tableName: "rate_limits",
      storeType: "pool",
      tableCreated: true,
    } as IRateLimiterStoreOptions);
  }
  return new RateLimiterMemory(base);
}

/**
 * A refusal is a RateLimiterRes, told apart from a store fault (an Error) by its shape: the limiter is cached
 * on globalThis and may have been built by another copy of the library (another bundle), whose class is not
 * ours (rate-limiter-flexible, lib/RateLimiterRes.js: numeric msBeforeNext and consumedPoints, which no
 * Error has).
 */
function isRefusal(res: unknown): res is RateLimiterRes {
  if (typeof res !== "object" || res === null) return false;
  const r = res as { msBeforeNext?: unknown; consumedPoints?: unknown };
  return typeof r.msBeforeNext === "number" && typeof r.consumedPoints === "number";
}

export function limiter(spec: LimiterSpec): Limiter {
  const id = `${spec.keyPrefix}:${spec.points}:${spec.durationSec}:${spec.blockDurationSec ?? 0}`;
  const get = () => {
    const built = limiters.use(() => new Map());
    let p = built.get(id);
    if (!p) {
      p = build(spec);
      built.set(id, p);
      p.catch(() => built.delete(id));
    }
    return p;
  };
  return {
    async take(key, cost = 1) {
      try {
        await (await get()).consume(key, cost);
        return null;
      } catch (res) {
        if (isRefusal(res)) return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
        throw res;
      }
    },
    async blockedFor(key) {
      const res = await (await get()).get(key);
      if (!res || res.consumedPoints <= spec.points) return 0;
      // The memory store answers `get` with an expired record until its timer removes it.
      if (spec.durationSec > 0 && res.msBeforeNext <= 0) return 0;
      return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
    },
    async reset(key) {
      await (await get()).delete(key);
    },
  };
}

/** A row per limiter for one statement: the key, the points taken, its window's end and the limit. */
export type LimitRow = { key: string; points: number; expire: number | null; limit: number };

function limitRows(items: { spec: LimiterSpec; key: string; cost?: number }[], now = Date.now()) {
  // Sorted by key: concurrent statements then lock shared rows in the same order and cannot deadlock.
  const rows: LimitRow[] = items
    .map((i) => ({
      key: `${i.spec.keyPrefix}:${i.key}`,
      points: i.cost ?? 1,
      expire: i.spec.durationSec > 0 ? now + i.spec.durationSec * 1000 : null,
      limit: i.spec.points,
    }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { rows, now };
}

/**
 * The limiters as rows another statement can take in the same round trip (the chat's michi_open_turn does,
 * through michi_take_rate_points), or null when they cannot ride along: a store other than Postgres, or a
 * limiter with a block duration. Then the caller takes them with takeAll.
 */
export async function limitsForStatement(
  items: { spec: LimiterSpec; key: string; cost?: number }[],
): Promise<{ rows: LimitRow[]; now: number } | null> {
  const store = await storeOptions();
  if (store.kind !== "postgres" || items.some((i) => (i.spec.blockDurationSec ?? 0) > 0)) return null;
  return limitRows(items);
}

/**
 * Takes one point (or `cost`) from several limiters at once; null when every one allows it, else the longest
 * wait in seconds. On the Postgres store, limiters without a block duration are taken in ONE statement (one
 * round trip instead of one per limiter) by michi_take_rate_points, with the same arithmetic and the same rows
 * as rate-limiter-flexible's own upsert (lib/RateLimiterPostgres.js, _upsert), so both count together.
 * Elsewhere each limiter is taken as usual, all at once.
 */
export async function takeAll(
  items: { spec: LimiterSpec; key: string; cost?: number }[],
): Promise<number | null> {
  const store = await storeOptions();
  if (store.kind !== "postgres" || items.some((i) => (i.spec.blockDurationSec ?? 0) > 0)) {
    const waits = await Promise.all(items.map((i) => limiter(i.spec).take(i.key, i.cost)));
    const wait = Math.max(0, ...waits.map((w) => w ?? 0));
    return wait > 0 ? wait : null;
  }
  const { rows, now } = limitRows(items);
  const wait = await takePoints(store.client as Parameters<typeof takePoints>[0], rows, now);
  return wait > 0 ? wait : null;
}
