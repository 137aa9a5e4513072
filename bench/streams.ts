import { setMaxListeners } from "node:events";
import { fakeModelControl } from "../tests/support/fake-model";
import { visitorTokens } from "./chat-overhead";
import type { Client, TurnResult } from "./lib/client";
import { sleep } from "./lib/procs";
import { KEYS } from "./lib/seed";
import type { App, World } from "./lib/servers";
import { round, summarize } from "./lib/stats";

// Live streams: N visitors open a chat each, the fake model answers every one of them slowly (four characters
// every half second), and all N streams must be open at the same moment with no error. Once they are, they are
// held for a few seconds and then closed by the visitors (as when they close the widget). N steps up until a
// step has an error, or does not get all N streams open before the step's time cap.

export type StreamStep = {
  n: number;
  held: boolean;
  /** Streams that ended without an error from the server (closed by the visitor or done). */
  ok: number;
  errors: number;
  failures: Record<string, number>;
  /** Most streams open at the same moment (first delta received, not yet ended). */
  peakOpen: number;
  /** Seconds from the first request until all N streams were open (null when they never were). */
  openAllSeconds: number | null;
  rssMbAtPeak: number | null;
  maxRssMb: number | null;
  firstDeltaP50Ms: number;
  firstDeltaP99Ms: number;
  seconds: number;
};

export type StreamsResult = {
  held: number;
  errors: number;
  rssMb: number | null;
  idleRssMb: number | null;
  steps: StreamStep[];
};

const CHUNK_DELAY_MS = 500;

export async function benchStreams(opts: {
  app: App;
  world: World;
  client: Client;
  quick: boolean;
  log: (s: string) => void;
}): Promise<StreamsResult> {
  const steps = opts.quick ? [50, 100] : [100, 250, 500, 1000];
  const holdMs = opts.quick ? 3000 : 5000;
  const capMs = opts.quick ? 20_000 : 45_000;
  const opensPerSecond = 100;
  const model = fakeModelControl(opts.world.modelUrl);
  let tokens: string[] = [];
  const idleRss = opts.app.rssKb();
  const out: StreamStep[] = [];

  for (const n of steps) {
    tokens = await visitorTokens(opts.client, KEYS.chat, n, tokens);
    // Streams outlast the cap; the visitors close them once all N have been open for holdMs.
    await model.reset();
    await model.setRules([
      {
        match: "hold-stream",
        steps: [
          {
            type: "slow_text",
            text: "abcd".repeat(Math.ceil(capMs / CHUNK_DELAY_MS) + 10),
            chunkDelayMs: CHUNK_DELAY_MS,
          },
        ],
      },
    ]);

    const close = new AbortController();
    setMaxListeners(n + 10, close.signal); // every open stream listens to it
    const cap = setTimeout(() => close.abort(), capMs);
    let open = 0;
    let peakOpen = 0;
    let rssAtPeak: number | null = null;
    let allOpenAt: number | null = null;
    let maxRss = 0;
    const sampler = setInterval(() => {
      maxRss = Math.max(maxRss, opts.app.rssKb() ?? 0);
    }, 250);
    const started = performance.now();
    const one = async (i: number): Promise<TurnResult | null> => {
      await sleep((i / opensPerSecond) * 1000);
      if (close.signal.aborted) return null;
      let counted = false;
      const r = await opts.client.chat(
        `/api/widget/${KEYS.chat}/chat`,
        { message: `hold-stream ${n}-${i}` },
        { authorization: `Bearer ${tokens[i]}` },
        {
          signal: close.signal,
          onFirstDelta: () => {
            counted = true;
            open++;
            peakOpen = Math.max(peakOpen, open);
            if (open === n && allOpenAt === null) {
              allOpenAt = performance.now();
              rssAtPeak = opts.app.rssKb();
              setTimeout(() => close.abort(), holdMs);
            }
          },
        },
      );
      if (counted) open--;
      // An error ends the step early: there is no point holding the others.
      if (!r.done && !close.signal.aborted) close.abort();
      return r;
    };
    const all = await Promise.all(Array.from({ length: n }, (_, i) => one(i)));
    clearTimeout(cap);
    clearInterval(sampler);
    const results = all.filter((r): r is TurnResult => r !== null);
    // Let the server store the closed turns before the next step starts.
    await sleep(2000);

    const failures: Record<string, number> = {};
    for (const r of results) {
      if (r.done) continue;
      // Closed by the visitor on purpose: a transport "error" without any error from the server.
      if (!r.error && r.status === 200 && r.transportError && allOpenAt !== null) continue;
      const kind = r.error?.code ?? r.transportError ?? `http_${r.status}`;
      failures[kind] = (failures[kind] ?? 0) + 1;
    }
    const errors = Object.values(failures).reduce((a, b) => a + b, 0);
    const fd = summarize(results.flatMap((r) => (r.firstDeltaMs === null ? [] : [r.firstDeltaMs])));
    const step: StreamStep = {
      n,
      held: errors === 0 && peakOpen === n,
      ok: results.length - errors,
      openAllSeconds: allOpenAt === null ? null : round((allOpenAt - started) / 1000, 1),
      errors,
      failures,
      peakOpen,
      rssMbAtPeak: rssAtPeak === null ? null : round(rssAtPeak / 1024, 1),
      maxRssMb: maxRss ? round(maxRss / 1024, 1) : null,
      firstDeltaP50Ms: round(fd.p50, 1),
      firstDeltaP99Ms: round(fd.p99, 1),
      seconds: round((performance.now() - started) / 1000, 1),
    };
    out.push(step);
    opts.log(
      `  streams n=${String(n).padStart(4)}  ${step.held ? "held" : "NOT held"}: peak open ${peakOpen}, ` +
        `${errors} errors${errors ? ` ${JSON.stringify(failures)}` : ""}, all open after ${step.openAllSeconds ?? "-"} s, ` +
        `RSS at peak ${step.rssMbAtPeak ?? "?"} MB, ` +
        `first delta p50 ${step.firstDeltaP50Ms} ms p99 ${step.firstDeltaP99Ms} ms`,
    );
    if (!step.held) break;
  }
  const best = [...out].reverse().find((s) => s.held);
  const failed = out.find((s) => !s.held);
  return {
    held: best?.n ?? 0,
    errors: failed?.errors ?? 0,
    rssMb: best?.rssMbAtPeak ?? null,
    idleRssMb: idleRss === null ? null : round(idleRss / 1024, 1),
    steps: out,
  };
}
