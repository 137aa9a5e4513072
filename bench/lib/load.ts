import type { TurnResult } from "./client";
import { type Summary, summarize } from "./stats";

// A closed-loop load generator: `concurrency` visitors, each sending its next turn as soon as the previous one
// ended, for `durationMs`. Throughput is answered turns per second of wall time until the last turn ended.

export type LoadResult = {
  concurrency: number;
  turns: number;
  answered: number;
  failed: number;
  /** Visitors who had no turn answered before the level's time was up: the fairness figure (should be 0). */
  starved: number;
  /** Failure kinds: the error code, or the transport error. */
  failures: Record<string, number>;
  elapsedMs: number;
  turnsPerSecond: number;
  latencyMs: Summary;
  firstDeltaMs: Summary;
};

export async function runLoad(opts: {
  concurrency: number;
  durationMs: number;
  turn: (visitor: number, n: number) => Promise<TurnResult>;
}): Promise<LoadResult> {
  const latencies: number[] = [];
  const firstDeltas: number[] = [];
  const failures: Record<string, number> = {};
  let turns = 0;
  const started = performance.now();
  const deadline = started + opts.durationMs;
  const served = new Set<number>();
  const visitor = async (v: number) => {
    for (let n = 0; performance.now() < deadline; n++) {
      const r = await opts.turn(v, n);
      turns++;
      if (r.done) {
        if (performance.now() <= deadline) served.add(v);
        latencies.push(r.ms);
        if (r.firstDeltaMs !== null) firstDeltas.push(r.firstDeltaMs);
      } else {
        const kind = r.error?.code ?? r.transportError ?? `http_${r.status}`;
        failures[kind] = (failures[kind] ?? 0) + 1;
      }
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, (_, v) => visitor(v)));
  const elapsedMs = performance.now() - started;
  return {
    concurrency: opts.concurrency,
    turns,
    answered: latencies.length,
    failed: turns - latencies.length,
    starved: opts.concurrency - served.size,
    failures,
    elapsedMs,
    turnsPerSecond: latencies.length / (elapsedMs / 1000),
    latencyMs: summarize(latencies),
    firstDeltaMs: summarize(firstDeltas),
  };
}

/** Runs `fn` over `items` with at most `limit` at a time. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (t: T, i: number) => Promise<R>,
) {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
