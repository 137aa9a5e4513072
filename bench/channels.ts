import { AsyncLocalStorage } from "node:async_hooks";
import os from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import pg from "pg";
import { POST } from "../src/app/api/channels/[channel]/[key]/route";
import { signature, textMessage } from "../tests/fixtures/channels/whatsapp/webhooks";
import { APP_SECRET, type ChannelWorld, startChannelWorld } from "../tests/support/channel-world";
import { PLATFORM } from "../tests/support/chat-world";
import { round, type Summary, summarize } from "./lib/stats";

// Channels (issue 29), in process on the channel test world: a fresh database (PGlite, or Postgres with
// DATABASE_URL), the fake model, the fake Graph API on loopback over https through the guarded agent, the real
// pg-boss workers, and Meta's signed deliveries handed to the webhook route's handler.
// - `ack`: Meta retries a delivery it does not see acknowledged in time, so the route only verifies the
//   signature and stores the message (the job is queued after the answer). Measured with 50 deliveries in
//   flight at once while the workers answer the earlier ones in the same process: a capacity figure (a closed
//   loop sending hundreds a second), not the target's. The target (p99 ≤ 50 ms) is read from `ackAtRates`.
// - `answered`: a burst of customers writing at once (one message each), from the first POST to the last
//   answer the fake Graph API accepted: signature, storage, queue, the chat turn, formatting, the send.
//   `latencyMs` is each customer's wait from their POST to their answer.
// - `ackAtRates`: the same acknowledgement with deliveries arriving at a steady rate (open loop, as Meta sends
//   them, not waiting for the previous answer), each timed from the moment it was due, so a stalled event loop
//   counts against us. A closed loop of 50 in flight measures queueing behind 49 others as much as the route.
// `loadAvg` is the machine's 1-minute load when the section started: the figures mean little on a busy host.

export type ChannelsResult = {
  database: "pglite" | "pg";
  ack: Summary & { concurrency: number; targetP99Ms: number };
  ackAtRates: {
    perSecond: number;
    seconds: number;
    n: number;
    p50: number;
    p99: number;
    max: number;
    /** How late this process's event loop ran, p99, during the run: no acknowledgement can beat it. */
    loopDelayP99Ms: number;
    loopDelayMaxMs: number;
  }[];
  /** Database statements an acknowledgement waits for (counted, not timed). */
  ackStatements: number;
  loadAvg: number;
  /**
   * `cpuMsPerTurn`: this process's CPU (user + system) over the burst per message answered; everything runs in
   * it (webhook, workers, turn, fake model, fake Graph API, PGlite when no DATABASE_URL).
   */
  answered: {
    messages: number;
    seconds: number;
    perSecond: number;
    cpuMsPerTurn: number;
    latencyMs: Summary;
  };
};

const ACK_CONCURRENCY = 50;
const ACK_TARGET_P99_MS = 50;
let seq = 0;

function delivery(from: string) {
  seq++;
  return textMessage(`Hello, question ${seq}`, {
    id: `wamid.BENCH${seq}x${Math.random().toString(36).slice(2, 8)}`,
    from,
    // Meta stamps the time the customer wrote: now, so the 24-hour window is open.
    timestamp: Math.floor(Date.now() / 1000),
  });
}

/** One signed delivery through the route's handler, imported once as a server would (the test world's own
 * `post` imports the route on every call, which costs more than the acknowledgement itself under tsx). */
async function post(c: ChannelWorld, json: unknown): Promise<Response> {
  const key = c.path.split("/").at(-1)!;
  const raw = new TextEncoder().encode(JSON.stringify(json));
  const headers = new Headers({
    "content-type": "application/json",
    "x-hub-signature-256": await signature(raw, APP_SECRET),
  });
  const req = new Request(`${PLATFORM}${c.path}`, { method: "POST", headers, body: raw });
  return POST(req, { params: Promise.resolve({ channel: "whatsapp", key }) });
}

const customer = (run: string, i: number) => `1555${run}${String(i).padStart(5, "0")}`;

async function burst(c: ChannelWorld, run: string, messages: number) {
  const before = c.graph.sent.length;
  const postedAt = new Map<string, number>();
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  await Promise.all(
    Array.from({ length: messages }, async (_, i) => {
      const from = customer(run, i);
      postedAt.set(from, Date.now());
      const res = await post(c, delivery(from));
      if (res.status !== 200) throw new Error(`the webhook answered HTTP ${res.status}`);
    }),
  );
  await c.graph.waitForSent(before + messages, 600_000);
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const answeredAt = new Map<string, number>();
  for (const r of c.graph.requests) {
    const to = r.body?.to;
    if (typeof to === "string" && postedAt.has(to) && !answeredAt.has(to)) answeredAt.set(to, r.at);
  }
  const waits = [...postedAt].map(([to, at]) => (answeredAt.get(to) ?? Number.NaN) - at);
  return {
    messages,
    seconds: round(seconds, 2),
    perSecond: round(messages / seconds, 1),
    cpuMsPerTurn: round((cpu.user + cpu.system) / 1000 / messages, 2),
    latencyMs: summarize(waits.filter(Number.isFinite)),
  };
}

async function acknowledgements(c: ChannelWorld, n: number) {
  const times: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: ACK_CONCURRENCY }, async () => {
      while (next < n) {
        // 200 customers writing several messages each: their jobs queue up behind each other, in order.
        const body = delivery(customer("77", next++ % 200));
        const t0 = performance.now();
        const res = await post(c, body);
        times.push(performance.now() - t0);
        if (res.status !== 200) throw new Error(`the webhook answered HTTP ${res.status}`);
      }
    }),
  );
  return { ...summarize(times), concurrency: ACK_CONCURRENCY, targetP99Ms: ACK_TARGET_P99_MS };
}

async function ackAtRate(c: ChannelWorld, perSecond: number, seconds: number) {
  const n = Math.round(perSecond * seconds);
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const start = performance.now();
  const times: number[] = [];
  const inFlight: Promise<void>[] = [];
  let refused = 0;
  for (let i = 0; i < n; i++) {
    const due = start + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const body = delivery(customer("88", i % 200));
    inFlight.push(
      post(c, body).then(
        (res) => {
          times.push(performance.now() - due);
          if (res.status !== 200) refused++;
        },
        () => {
          refused++;
        },
      ),
    );
  }
  await Promise.all(inFlight);
  loop.disable();
  if (refused > 0) throw new Error(`the webhook refused ${refused} of ${n} deliveries`);
  const s = summarize(times);
  return {
    perSecond,
    seconds,
    n,
    p50: round(s.p50, 1),
    p99: round(s.p99, 1),
    max: round(s.max, 1),
    // The histogram counts in nanoseconds, above its own resolution.
    loopDelayP99Ms: round(loop.percentile(99) / 1e6, 1),
    loopDelayMaxMs: round(loop.max / 1e6, 1),
  };
}

/**
 * Statements one acknowledgement sends to the database before it answers (counted, so the machine's load does
 * not move it): each waits its turn behind the workers' statements, on PGlite's one backend above all. Only
 * the statements issued on the acknowledgement's own behalf (its async context) before its answer count; the
 * workers answering meanwhile do not. The fewest of five.
 */
async function statementsPerAck(c: ChannelWorld): Promise<number> {
  const query = pg.Client.prototype.query;
  const mine = new AsyncLocalStorage<{ n: number; answered: boolean }>();
  const counts: number[] = [];
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const ack = mine.getStore();
    if (ack && !ack.answered) ack.n++;
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  try {
    for (let i = 0; i < 5; i++) {
      const ack = { n: 0, answered: false };
      const res = await mine.run(ack, () => post(c, delivery(customer("66", i))));
      ack.answered = true;
      counts.push(ack.n);
      if (res.status !== 200) throw new Error(`the webhook answered HTTP ${res.status}`);
    }
  } finally {
    pg.Client.prototype.query = query;
  }
  return Math.min(...counts);
}

/** The channel world on PGlite, or on a fresh database of the Postgres server at `databaseUrl`. */
async function startWorld(databaseUrl: string | undefined): Promise<ChannelWorld> {
  const saved = process.env.DATABASE_URL;
  // The test world chooses its database by DATABASE_URL (tests/support/db.ts): set or cleared for the start.
  if (databaseUrl) process.env.DATABASE_URL = databaseUrl;
  else delete process.env.DATABASE_URL;
  try {
    return await startChannelWorld({ bot: { language: "en" } });
  } finally {
    if (saved === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = saved;
  }
}

export async function benchChannels(opts: {
  quick: boolean;
  log: (s: string) => void;
  /** Postgres (a server URL: the world makes a fresh database on it and drops it after); PGlite without. */
  databaseUrl?: string;
}): Promise<ChannelsResult> {
  const loadAvg = round(os.loadavg()[0] ?? 0, 2);
  const c = await startWorld(opts.databaseUrl);
  opts.log(
    `  channels on ${c.w.dbUrl ? "Postgres" : "PGlite"}: load average ${loadAvg} on ${os.cpus().length} cores at the start`,
  );
  try {
    c.w.fake.setRules([
      { match: "", steps: [{ type: "text", text: "Thanks for writing! We open at **nine**." }] },
    ]);
    // Warm-up: the first turns compile the code paths and fill the caches.
    await burst(c, "10", 20);
    const ackStatements = await statementsPerAck(c);
    opts.log(`  channels webhook ack: ${ackStatements} database statements before the answer`);
    const answered = await burst(c, "20", opts.quick ? 100 : 300);
    const l = answered.latencyMs;
    opts.log(
      `  channels answered ${answered.messages} customers in ${answered.seconds} s: ${answered.perSecond}/s ` +
        `(wait p50 ${round(l.p50, 0)} ms, p99 ${round(l.p99, 0)} ms; CPU ${answered.cpuMsPerTurn} ms per turn)`,
    );
    const ackAtRates = [];
    for (const rate of opts.quick ? [10, 50] : [10, 50, 100]) {
      const r = await ackAtRate(c, rate, opts.quick ? 5 : 10);
      ackAtRates.push(r);
      opts.log(
        `  channels webhook ack at ${rate}/s: p50 ${r.p50} ms, p99 ${r.p99} ms, max ${r.max} ms ` +
          `(event loop late by ${r.loopDelayP99Ms} ms at p99, ${r.loopDelayMaxMs} ms at most)`,
      );
    }
    const ack = await acknowledgements(c, opts.quick ? 500 : 2000);
    opts.log(
      `  channels webhook ack at ${ACK_CONCURRENCY} in flight: p50 ${round(ack.p50, 1)} ms, ` +
        `p99 ${round(ack.p99, 1)} ms, max ${round(ack.max, 1)} ms (capacity: a closed loop; the target is read at steady rates)`,
    );
    return { database: c.w.dbUrl ? "pg" : "pglite", ack, ackAtRates, ackStatements, loadAvg, answered };
  } finally {
    await c.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const pg = process.argv.includes("--channels-db=pg");
  const r = await benchChannels({
    quick: process.argv.includes("--quick"),
    log: (s) => console.log(s),
    databaseUrl: pg ? (process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres") : undefined,
  });
  console.log(JSON.stringify(r, null, 2));
  process.exit(0);
}
