// The client side of the live bench (bench/live.ts): starting its instances (bench/live-host.ts), holding SSE
// streams, appending, reading an instance's memory, and the closed-loop bot turns it compares against.
import http from "node:http";
import { createParser } from "eventsource-parser";
import type { Client } from "./lib/client";
import { readyMessage, sleep, spawnTracked, stopChild } from "./lib/procs";
import { KEYS } from "./lib/seed";
import { type Summary, summarize } from "./lib/stats";
import type { Hops } from "./live-hops";

/** The instances' MICHI_PUBLIC_URL, sent as every request's Origin. */
export const ORIGIN = "http://bench-live.test";

export type Host = { url: string; pid: number | undefined; stop(): Promise<void> };

export async function startHost(env: NodeJS.ProcessEnv): Promise<Host> {
  const child = spawnTracked("bench/live-host.ts", [], {
    ts: true,
    nodeArgs: ["--expose-gc"],
    env,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const { port } = await readyMessage<{ port: number }>(child, "a live bench instance", 60_000);
  return { url: `http://127.0.0.1:${port}`, pid: child.pid, stop: () => stopChild(child) };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });

/** A held SSE stream; `onEvent` gets each live event's parsed data, `ready` resolves after the first read. */
export function hold(
  url: string,
  headers: Record<string, string>,
  onEvent: (e: { seq: number; kind: string; data: { messageId?: string } }) => void,
) {
  let resolveReady!: () => void;
  let rejectReady!: (e: Error) => void;
  const ready = new Promise<void>((res, rej) => {
    resolveReady = res;
    rejectReady = rej;
  });
  const req = http.get(
    url,
    { agent, headers: { origin: ORIGIN, accept: "text/event-stream", ...headers } },
    (res) => {
      if (res.statusCode !== 200) return rejectReady(new Error(`stream HTTP ${res.statusCode}`));
      const parser = createParser({
        onEvent(m) {
          if (m.event === "ready") return resolveReady();
          onEvent(JSON.parse(m.data));
        },
      });
      res.setEncoding("utf8");
      res.on("data", (c: string) => parser.feed(c));
    },
  );
  req.on("error", (e) => rejectReady(e));
  return { ready, close: () => req.destroy() };
}

/** The host's memory after a full collection: resident, and the live JavaScript heap plus buffers. */
export function memory(host: Host): Promise<{ rss: number; heap: number }> {
  return new Promise((resolve, reject) => {
    http
      .get(`${host.url}/bench/memory`, { agent }, (res) => {
        let raw = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (raw += c));
        res.on("end", () => resolve(JSON.parse(raw)));
      })
      .on("error", reject);
  });
}

export type LoopStats = {
  p50: number;
  p99: number;
  max: number;
  gcCount: number;
  gcMs: number;
  gcMaxMs: number;
};

/** The host's event-loop delay (ms late) and GC pauses since the previous call (bench/live-host.ts). */
export function loopStats(host: Host): Promise<LoopStats> {
  return getJson(`${host.url}/bench/loop`);
}

/** The host's bot turns hop by hop since the previous call (bench/live-hops.ts). */
export function hopStats(host: Host): Promise<Hops> {
  return getJson(`${host.url}/bench/hops`);
}

function getJson<T>(url: string): Promise<T> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        let raw = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (raw += c));
        res.on("end", () => resolve(JSON.parse(raw)));
      })
      .on("error", reject);
  });
}

/** The host's counters (bench/live-host.ts): statements sent to Postgres so far. */
export function counters(host: Host): Promise<{ queries: number }> {
  return new Promise((resolve, reject) => {
    http
      .get(`${host.url}/bench/counters`, { agent }, (res) => {
        let raw = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (raw += c));
        res.on("end", () => resolve(JSON.parse(raw)));
      })
      .on("error", reject);
  });
}

export function post(url: string, body: unknown): Promise<void> {
  return new Promise((resolve, reject) => {
    const raw = JSON.stringify(body);
    const req = http.request(
      url,
      {
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(raw) },
      },
      (res) => {
        res.resume();
        res.on("end", () =>
          res.statusCode === 200 ? resolve() : reject(new Error(`append HTTP ${res.statusCode}`)),
        );
      },
    );
    req.on("error", reject);
    req.end(raw);
  });
}

/** Closed-loop bot turns on `host` for `ms`: turns per second. */
export async function botTurns(client: Client, tokens: string[], ms: number): Promise<number> {
  const until = performance.now() + ms;
  let n = 0;
  await Promise.all(
    tokens.map(async (token, v) => {
      while (performance.now() < until) {
        const r = await client.chat(
          `/api/widget/${KEYS.chat}/chat`,
          { message: `bench-turn: anything on? (${v}-${n})` },
          { authorization: `Bearer ${token}` },
        );
        if (r.done && performance.now() <= until) n++;
      }
    }),
  );
  return n / (ms / 1000);
}

export type OpenLoop = {
  offeredPerSec: number;
  /** Turns answered (a `done` event) of those offered in the window, per second of the window. */
  servedPerSec: number;
  offered: number;
  failed: number;
  /** From each turn's scheduled start (not its actual send, so a stalled sender cannot hide a queue) to done. */
  latencyMs: Summary;
};

/**
 * Open-loop bot turns: one turn offered every 1/perSecond s for `ms`, whether or not earlier ones have ended,
 * as visitors arrive on a site. Below capacity the served rate equals the offered rate and what a visitor
 * notices is the latency; a rate that falls behind, or a latency that grows, means the machine ran out.
 */
export async function openLoopTurns(
  client: Client,
  tokens: string[],
  perSecond: number,
  ms: number,
): Promise<OpenLoop> {
  const total = Math.round((perSecond * ms) / 1000);
  const start = performance.now();
  const latencies: number[] = [];
  let failed = 0;
  const turns: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const token = tokens[i % tokens.length]!;
    turns.push(
      client
        .chat(
          `/api/widget/${KEYS.chat}/chat`,
          { message: `bench-turn: anything on? (open-${i})` },
          { authorization: `Bearer ${token}` },
        )
        .then((r) => {
          if (r.done) latencies.push(performance.now() - due);
          else failed++;
        }),
    );
  }
  await Promise.all(turns);
  return {
    offeredPerSec: perSecond,
    servedPerSec: latencies.length / (ms / 1000),
    offered: total,
    failed,
    latencyMs: summarize(latencies),
  };
}
