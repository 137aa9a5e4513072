// Where a bot turn's time goes inside a live bench instance (bench/live-host.ts), hop by hop, so the open
// loop's tail during the live load can be pinned on one of them: waiting for a pooled connection, the
// statements on a Postgres backend, the fake model's response headers, the fixture fetch, or none of those
// (the event loop: JavaScript, queued callbacks, the other requests sharing the thread). Each chat request runs
// in its own AsyncLocalStorage context; pg's pool, pg's client and undici's diagnostics channels add to it.
import { AsyncLocalStorage } from "node:async_hooks";
import diagnostics from "node:diagnostics_channel";
import pg from "pg";
import { percentile } from "./lib/stats";

export type Hop = "body" | "pool" | "db" | "model" | "fetch" | "other";
const HOPS: Hop[] = ["body", "pool", "db", "model", "fetch", "other"];

type Trace = Record<Hop, number> & { start: number; firstByte: number; statements: Map<string, number> };
const als = new AsyncLocalStorage<Trace>();
const turns: {
  total: number;
  firstByte: number;
  hops: Record<Hop, number>;
  statements: Map<string, number>;
}[] = [];

const blank = (): Trace => ({
  start: performance.now(),
  firstByte: 0,
  statements: new Map(),
  body: 0,
  pool: 0,
  db: 0,
  model: 0,
  fetch: 0,
  other: 0,
});

/** Runs one chat request inside a trace, recorded once `fn` (the whole response) has ended. */
export function traceTurn<T>(fn: (mark: { body(): void; firstByte(): void }) => Promise<T>): Promise<T> {
  const t = blank();
  return als.run(t, async () => {
    try {
      return await fn({
        body: () => {
          t.body = performance.now() - t.start;
        },
        firstByte: () => {
          if (!t.firstByte) t.firstByte = performance.now() - t.start;
        },
      });
    } finally {
      const total = performance.now() - t.start;
      const hops = { body: t.body, pool: t.pool, db: t.db, model: t.model, fetch: t.fetch, other: 0 };
      hops.other = Math.max(0, total - hops.body - hops.pool - hops.db - hops.model - hops.fetch);
      turns.push({ total, firstByte: t.firstByte, hops, statements: t.statements });
    }
  });
}

/** The same call shape as traceTurn, recording nothing. */
export function untraced<T>(fn: (mark: { body(): void; firstByte(): void }) => Promise<T>): Promise<T> {
  return fn({ body() {}, firstByte() {} });
}

/** Wraps a node-style callback or a promise so the time until it settles is added to the trace's hop. */
function timed(hop: Hop, args: unknown[], call: (args: unknown[]) => unknown, label?: string): unknown {
  const t = als.getStore();
  if (!t) return call(args);
  const from = performance.now();
  const add = () => {
    const ms = performance.now() - from;
    t[hop] += ms;
    if (label) t.statements.set(label, (t.statements.get(label) ?? 0) + ms);
  };
  const last = args.length - 1;
  const cb = args[last];
  if (typeof cb === "function") {
    const copy = [...args];
    copy[last] = (...r: unknown[]) => {
      add();
      return (cb as (...a: unknown[]) => unknown)(...r);
    };
    return call(copy);
  }
  const out = call(args);
  if (out && typeof (out as Promise<unknown>).then === "function") (out as Promise<unknown>).then(add, add);
  return out;
}

/** A statement's first words (a function's name for the turn's calls), to say which one a slow turn waited on. */
function statementLabel(q: unknown): string {
  const text = typeof q === "string" ? q : String((q as { text?: unknown } | null)?.text ?? "?");
  return text.replace(/\s+/g, " ").trim().slice(0, 48);
}

let installed = false;
/** Hooks pg and undici once; `modelOrigin` tells a model request from the pack's fixture fetch. */
export function installHops(modelOrigin: string) {
  if (installed) return;
  installed = true;
  const connect = pg.Pool.prototype.connect as (...a: unknown[]) => unknown;
  (pg.Pool.prototype as { connect: unknown }).connect = function (this: unknown, ...args: unknown[]) {
    return timed("pool", args, (a) => connect.apply(this, a));
  };
  const query = pg.Client.prototype.query as (...a: unknown[]) => unknown;
  (pg.Client.prototype as { query: unknown }).query = function (this: unknown, ...args: unknown[]) {
    return timed("db", args, (a) => query.apply(this, a), statementLabel(args[0]));
  };
  // undici publishes a request's creation in its caller's context and its response headers later: the
  // request object ties the two together.
  const open = new WeakMap<object, { t: Trace; hop: Hop; from: number }>();
  diagnostics.channel("undici:request:create").subscribe((m) => {
    const { request } = m as { request: { origin?: string } };
    const t = als.getStore();
    if (!t) return;
    const hop: Hop = String(request.origin ?? "").startsWith(modelOrigin) ? "model" : "fetch";
    open.set(request, { t, hop, from: performance.now() });
  });
  diagnostics.channel("undici:request:headers").subscribe((m) => {
    const { request } = m as { request: object };
    const o = open.get(request);
    if (!o) return;
    open.delete(request);
    o.t[o.hop] += performance.now() - o.from;
  });
}

const r2 = (v: number) => Math.round(v * 100) / 100;

/**
 * The turns traced since the last call: p50 / p99 of the whole, of the time to the first byte and of each
 * hop, and the slowest 1% split into hops (their mean), which says what a tail turn waited for.
 */
export function hopsSince() {
  const list = turns.splice(0);
  const sorted = (f: (x: (typeof list)[number]) => number) => list.map(f).sort((a, b) => a - b);
  const pair = (v: number[]) => ({ p50: r2(percentile(v, 50)), p99: r2(percentile(v, 99)) });
  const byTotal = [...list].sort((a, b) => b.total - a.total);
  const tail = byTotal.slice(0, Math.max(1, Math.ceil(list.length / 100)));
  const mean = (f: (x: (typeof list)[number]) => number) =>
    tail.length ? r2(tail.reduce((s, x) => s + f(x), 0) / tail.length) : Number.NaN;
  const statements = new Map<string, number>();
  for (const x of tail)
    for (const [k, v] of x.statements) statements.set(k, (statements.get(k) ?? 0) + v / tail.length);
  return {
    n: list.length,
    total: pair(sorted((x) => x.total)),
    firstByte: pair(sorted((x) => x.firstByte)),
    hops: Object.fromEntries(HOPS.map((h) => [h, pair(sorted((x) => x.hops[h]))])) as Record<
      Hop,
      { p50: number; p99: number }
    >,
    slowest: {
      n: tail.length,
      total: mean((x) => x.total),
      ...(Object.fromEntries(HOPS.map((h) => [h, mean((x) => x.hops[h])])) as Record<Hop, number>),
      statements: Object.fromEntries([...statements].map(([k, v]) => [k, r2(v)])),
    },
  };
}

export type Hops = ReturnType<typeof hopsSince>;
