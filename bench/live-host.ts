// A bench instance for the live transport (bench/live.ts): the platform's own handlers (the visitor's live
// stream route, the console's watchLiveEvents, the chat and session routes) behind a bare node:http server
// on port 0, so two of them can share one Postgres without a production build each. Not the production
// server: no Next pipeline and no admin session in front of the console's stream (the bench measures the
// transport). POST /bench/append stands in for a use case: one tenant transaction that appends, then wakeLive.
import http from "node:http";
import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";
import pg from "pg";
import { getDb } from "../src/lib/db";
import { appendLiveEvent } from "../src/lib/db/queries/live-events";
import type { tenants } from "../src/lib/db/schema";
import { wakeLive } from "../src/lib/live/bus";
import { watchLiveEvents } from "../src/lib/live/watch";
import type { LiveEventData, LiveKind } from "../src/shared/live-events";
import { hopsSince, installHops, traceTurn, untraced } from "./live-hops";

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
const events = (await import("../src/app/api/widget/[key]/conversations/[id]/events/route")) as unknown as {
  GET: Handler;
};
const chat = (await import("../src/app/api/widget/[key]/chat/route")) as unknown as { POST: Handler };
const session = (await import("../src/app/api/widget/[key]/session/route")) as unknown as { POST: Handler };

async function body(req: http.IncomingMessage): Promise<string> {
  let raw = "";
  for await (const c of req) raw += c;
  return raw;
}

// Opt-in (`--live-hops`): an AsyncLocalStorage context per chat request turns on promise hooks, which cost
// every bot turn some CPU, so the default figures are measured without it.
const HOPS = process.env.BENCH_LIVE_HOPS === "1";
if (HOPS) installHops(new URL(process.env.OPENAI_BASE_URL ?? "http://model.invalid").origin);

async function send(res: http.ServerResponse, out: Response, gone: AbortSignal, firstByte?: () => void) {
  res.writeHead(out.status, Object.fromEntries(out.headers));
  if (!out.body) return res.end();
  const reader = out.body.getReader();
  gone.addEventListener("abort", () => void reader.cancel().catch(() => {}), { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      firstByte?.();
      res.write(value);
    }
  } catch {}
  res.end();
}

// Statements this process sent to Postgres (every pg client: the pool's, LISTEN's), for GET /bench/counters:
// a count that a busy machine cannot move, unlike CPU time.
let queries = 0;
const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
(pg.Client.prototype as { query: unknown }).query = function (this: unknown, ...args: unknown[]) {
  queries++;
  return query.apply(this, args);
};

// The event loop's delay and the collector's pauses since the previous GET /bench/loop (the bench reads it at
// each phase's start and end): a late loop delays every bot turn on this instance, whatever took the time.
const LOOP_RESOLUTION_MS = 10;
const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
loop.enable();
const gc = { count: 0, ms: 0, maxMs: 0 };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    gc.count++;
    gc.ms += e.duration;
    gc.maxMs = Math.max(gc.maxMs, e.duration);
  }
}).observe({ entryTypes: ["gc"] });
function loopSince() {
  const late = (ns: number) => Math.max(0, Math.round((ns / 1e6 - LOOP_RESOLUTION_MS) * 100) / 100);
  const out = {
    p50: late(loop.percentile(50)),
    p99: late(loop.percentile(99)),
    max: late(loop.max),
    gcCount: gc.count,
    gcMs: Math.round(gc.ms * 10) / 10,
    gcMaxMs: Math.round(gc.maxMs * 10) / 10,
  };
  loop.reset();
  Object.assign(gc, { count: 0, ms: 0, maxMs: 0 });
  return out;
}

// The live bench's control phases (bench/live.ts): CPU burnt on this event loop, in small slices at a steady
// rate as the live work's pieces come, so the bot turns share this thread with work that is not live at all.
const BURN_TICKS = 200;
let burning: NodeJS.Timeout | undefined;
function burn(msPerSec: number) {
  clearTimeout(burning);
  burning = undefined;
  if (!(msPerSec > 0)) return;
  const slice = msPerSec / BURN_TICKS;
  let next = performance.now();
  const tick = () => {
    const until = performance.now() + slice;
    while (performance.now() < until);
    next += 1000 / BURN_TICKS;
    burning = setTimeout(tick, Math.max(0, next - performance.now()));
  };
  burning = setTimeout(tick, 0);
}

const server = http.createServer(async (req, res) => {
  const ac = new AbortController();
  // Only a client gone before the end aborts (as scripts/direct-routes.mjs does): an abort builds a
  // DOMException with a stack, which on every finished request was the bench's cost, not the platform's.
  res.on("close", () => {
    if (!res.writableFinished) ac.abort();
  });
  const url = new URL(req.url ?? "/", "http://bench.invalid");
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
  try {
    let m = /^\/api\/widget\/([^/]+)\/conversations\/([^/]+)\/events$/.exec(url.pathname);
    if (m && req.method === "GET") {
      const r = new Request(url, { headers, signal: ac.signal });
      return await send(
        res,
        await events.GET(r, { params: Promise.resolve({ key: m[1]!, id: m[2]! }) }),
        ac.signal,
      );
    }
    m = /^\/api\/widget\/([^/]+)\/chat$/.exec(url.pathname);
    if (m && req.method === "POST") {
      const key = m[1]!;
      // Traced hop by hop (bench/live-hops.ts), from the request's headers to its last byte.
      const run = HOPS ? traceTurn : untraced;
      return await run(async (mark) => {
        const r = new Request(url, { method: "POST", headers, body: await body(req), signal: ac.signal });
        mark.body();
        await send(res, await chat.POST(r, { params: Promise.resolve({ key }) }), ac.signal, mark.firstByte);
      });
    }
    m = /^\/api\/widget\/([^/]+)\/session$/.exec(url.pathname);
    if (m && req.method === "POST") {
      const r = new Request(url, { method: "POST", headers, body: await body(req), signal: ac.signal });
      return await send(res, await session.POST(r, { params: Promise.resolve({ key: m[1]! }) }), ac.signal);
    }
    m = /^\/bench\/console\/([^/]+)$/.exec(url.pathname);
    if (m && req.method === "GET") {
      const db = await getDb();
      const tenant = { id: m[1]! } as typeof tenants.$inferSelect;
      const stream = await watchLiveEvents({ db, tenant, role: "owner" }, { after: null, signal: ac.signal });
      return await send(
        res,
        new Response(stream, { headers: { "content-type": "text/event-stream" } }),
        ac.signal,
      );
    }
    if (url.pathname === "/bench/counters") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify({ queries }));
    }
    if (url.pathname === "/bench/burn" && req.method === "POST") {
      burn(Number(url.searchParams.get("msPerSec")));
      return res.writeHead(200).end();
    }
    if (url.pathname === "/bench/hops") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify(hopsSince()));
    }
    if (url.pathname === "/bench/loop") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify(loopSince()));
    }
    if (url.pathname === "/bench/memory") {
      // Started with --expose-gc: the live heap after a full collection, steadier than RSS alone.
      (globalThis as { gc?: () => void }).gc?.();
      const m = process.memoryUsage();
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify({ rss: m.rss, heap: m.heapUsed + m.external + m.arrayBuffers }));
    }
    if (url.pathname === "/bench/append" && req.method === "POST") {
      const input = JSON.parse(await body(req)) as {
        tenantId: string;
        conversationId: string;
        kind: LiveKind;
        data: LiveEventData[LiveKind];
      };
      const db = await getDb();
      const seq = await db.forTenant(input.tenantId, (tx) =>
        appendLiveEvent(tx, {
          conversationId: input.conversationId,
          kind: input.kind,
          data: input.data as never,
        }),
      );
      wakeLive(input.tenantId, input.conversationId);
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify({ seq }));
    }
    res.writeHead(404).end();
  } catch (err) {
    if (!res.headersSent) res.writeHead(500);
    res.end(String((err as Error).message));
  }
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  const addr = server.address();
  process.send?.({ port: typeof addr === "object" && addr ? addr.port : 0 });
});
process.on("SIGTERM", () => process.exit(0));
