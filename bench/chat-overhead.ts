import { fakeModelControl, type Rule } from "../tests/support/fake-model";
import { type Client, makeClient, type TurnResult } from "./lib/client";
import { type LoadResult, mapLimit, runLoad } from "./lib/load";
import { cpuMs } from "./lib/procs";
import { KEYS } from "./lib/seed";
import type { App, LoopDelay, World } from "./lib/servers";
import { round } from "./lib/stats";

// Platform overhead per turn: the same turn (one fetch_json call to the tenant's https site, then the answer)
// through michi-chat's production server and through the bare baseline server, at several concurrencies.
// The fake model answers instantly, so the latency is the platform's own work plus the unavoidable hops.

export const CHAT_RULES: Rule[] = [
  {
    match: "bench-turn",
    steps: [
      { type: "tool_calls", calls: [{ name: "fetch_json", arguments: "{}" }] },
      {
        type: "text",
        text: "This weekend: {{tool.events.0.title}} on {{tool.events.0.startsAt}}. Anything else?",
      },
    ],
  },
];

/** A visitor's conversation is this many turns long, then they start a new one. */
const TURNS_PER_CONVERSATION = 5;

export type Measured = LoadResult & {
  cpuMsPerTurn: number | null;
  /** Event-loop delay inside the server during the level (michi-chat only; null for the baseline). */
  loopDelayMs: LoopDelay | null;
};

export type ChatLevel = {
  concurrency: number;
  ours: Measured;
  baseline: Measured;
  /** The framework floor: the baseline's turn behind the production server's request path (floor-server.ts). */
  floor: Measured;
  /** The michi-chat server's resident memory after the level. */
  rssMb: number | null;
  overheadP50Ms: number;
  overheadP99Ms: number;
  throughputRatio: number;
};

export type ChatResult = {
  levels: ChatLevel[];
  overheadP50Ms: number;
  overheadP99Ms: number;
  /** At the highest concurrency. */
  turnsPerSecond: number;
  baselineTurnsPerSecond: number;
  throughputRatio: number;
  throughputAtConcurrency: number;
  /** Server CPU per answered turn at the highest concurrency (michi-chat process vs baseline process). */
  cpuMsPerTurn: number | null;
  baselineCpuMsPerTurn: number | null;
  /** The framework floor (the server's request path, no guard/database/limits) at the highest concurrency. */
  floorCpuMsPerTurn: number | null;
  floorTurnsPerSecond: number;
  /** cpuMsPerTurn / floorCpuMsPerTurn: the target is at most 2. */
  cpuVsFloor: number | null;
  /** michi-chat's turn latency minus the floor's, at 1 visitor. */
  overheadVsFloorP50Ms: number;
  /**
   * The same baseline started with the production server's Node flags (scripts/server-flags.mjs), measured at
   * the highest concurrency only: michi-chat's throughput against it, so a flag's gain is not read as the
   * platform's.
   */
  flaggedBaseline: { turnsPerSecond: number; cpuMsPerTurn: number | null; throughputRatio: number } | null;
};

/** One side of the comparison: a server, how to open a fresh client to it, and one turn of a visitor. */
export type Side = {
  name: string;
  pid: number | undefined;
  app?: App;
  newClient: () => Client;
  turn: (client: Client, visitor: number, n: number) => Promise<TurnResult>;
};

/**
 * One level: a warm-up (JIT, pools, caches), then `concurrency` visitors who all open a fresh connection at the
 * same moment (a new client, so no socket is reused from the warm-up) and keep chatting for `durationMs`.
 */
export async function measureLevel(opts: {
  side: Side;
  world: World;
  concurrency: number;
  durationMs: number;
  warmUp: boolean;
}): Promise<Measured> {
  const { side, concurrency } = opts;
  const model = fakeModelControl(opts.world.modelUrl);
  // The fake model records every request; start each run with an empty log so memory stays flat.
  await model.reset();
  await model.setRules(CHAT_RULES);
  if (opts.warmUp) {
    const warm = side.newClient();
    try {
      await runLoad({
        concurrency,
        durationMs: Math.min(1500, opts.durationMs / 2),
        turn: (v, n) => side.turn(warm, v, n),
      });
    } finally {
      warm.close();
    }
  }
  const client = side.newClient();
  try {
    await side.app?.loopDelay();
    const cpuBefore = cpuMs(side.pid);
    const load = await runLoad({
      concurrency,
      durationMs: opts.durationMs,
      turn: (v, n) => side.turn(client, v, n),
    });
    const cpuAfter = cpuMs(side.pid);
    const loopDelayMs = (await side.app?.loopDelay()) ?? null;
    return {
      ...load,
      cpuMsPerTurn:
        cpuBefore === null || cpuAfter === null || load.answered === 0
          ? null
          : round((cpuAfter - cpuBefore) / load.answered, 2),
      loopDelayMs,
    };
  } finally {
    client.close();
  }
}

/**
 * Brings a side's server to its steady state before any level is measured: V8 optimises a turn's code only
 * after it ran many times, and michi-chat's turn runs far more distinct code than the baseline's. Measured
 * on a fresh server, its CPU per turn at 1 visitor kept falling for the first ~3,000 turns (6.7 ms in the
 * first 3 s, 2.4-3.0 ms after 15 s), which the old 1.5 s warm-up of the first level did not reach. Every side
 * gets the same number of turns, at 10 visitors, whatever its speed.
 */
export async function warmUpSide(side: Side, world: World, turns: number): Promise<void> {
  const model = fakeModelControl(world.modelUrl);
  await model.reset();
  await model.setRules(CHAT_RULES);
  const client = side.newClient();
  const deadline = performance.now() + 60_000;
  let done = 0;
  try {
    await Promise.all(
      Array.from({ length: 10 }, async (_, v) => {
        for (let n = 0; done < turns && performance.now() < deadline; n++) {
          await side.turn(client, v, n);
          done++;
        }
      }),
    );
  } finally {
    client.close();
  }
}

export function describeLevel(name: string, r: Measured): string {
  const loop = r.loopDelayMs ? `, loop delay p50 ${r.loopDelayMs.p50} p99 ${r.loopDelayMs.p99} ms` : "";
  return (
    `  ${name.padEnd(8)} c=${String(r.concurrency).padStart(3)}  ${r.answered} turns, ${r.failed} failed, ` +
    `${r.starved} starved, p50 ${r.latencyMs.p50.toFixed(1)} ms, p99 ${r.latencyMs.p99.toFixed(1)} ms, ` +
    `${r.turnsPerSecond.toFixed(1)} turns/s, ${r.cpuMsPerTurn ?? "?"} CPU ms/turn${loop}`
  );
}

/** michi-chat's side: each visitor has a widget session and continues a conversation for a few turns. */
export async function michiSide(app: App, sessions: Client, visitors: number): Promise<Side> {
  const tokens = await visitorTokens(sessions, KEYS.chat, visitors);
  const conversations: (string | null)[] = tokens.map(() => null);
  return {
    name: "michi",
    pid: app.child.pid,
    app,
    newClient: () => makeClient(app.url, app.origin),
    async turn(client, v, n) {
      const r = await client.chat(
        `/api/widget/${KEYS.chat}/chat`,
        {
          message: question(n),
          conversationId: n % TURNS_PER_CONVERSATION === 0 ? undefined : (conversations[v] ?? undefined),
        },
        { authorization: `Bearer ${tokens[v]}` },
      );
      if (r.conversationId) conversations[v] = r.conversationId;
      return r;
    },
  };
}

const question = (n: number) => `bench-turn: is anything on this weekend? (${n})`;

/** A bare server's side (the baseline, the floor): one POST per turn, no session or conversation. */
export function plainSide(name: string, url: string, pid: number | undefined, route: string): Side {
  return {
    name,
    pid,
    newClient: () => makeClient(url, url),
    turn: (client, _v, n) => client.chat(route, { message: question(n) }),
  };
}

export async function visitorTokens(client: Client, key: string, n: number, have: string[] = []) {
  const more = await mapLimit(Array.from({ length: Math.max(0, n - have.length) }), 20, () =>
    client.session(key),
  );
  return [...have, ...more];
}

export const CHAT_LEVELS = [1, 50, 100, 200];
/** Turns each side serves before the first level (see warmUpSide). */
export const WARM_UP_TURNS = 3000;

export async function benchChat(opts: {
  app: App;
  baselineUrl: string;
  baselinePid: number | undefined;
  flaggedBaseline?: { url: string; pid: number | undefined };
  /** The framework floor's server (startFloor). */
  floor: { url: string; pid: number | undefined };
  world: World;
  sessions: Client;
  quick: boolean;
  log: (s: string) => void;
}): Promise<ChatResult> {
  const levels = opts.quick ? [1, 100] : CHAT_LEVELS;
  const durationMs = opts.quick ? 3000 : 10_000;
  const ours = await michiSide(opts.app, opts.sessions, Math.max(...levels));
  const baseline = plainSide("baseline", opts.baselineUrl, opts.baselinePid, "/chat");
  const floor = plainSide("floor", opts.floor.url, opts.floor.pid, "/floor");
  const warmed = new Set<string>();
  const run = async (side: Side, concurrency: number) => {
    // In quick mode only the first level of each side warms up (at 200 visitors one round takes seconds).
    const warmUp = !opts.quick || !warmed.has(side.name);
    warmed.add(side.name);
    const r = await measureLevel({ side, world: opts.world, concurrency, durationMs, warmUp });
    opts.log(describeLevel(side.name, r));
    return r;
  };

  const fb = opts.flaggedBaseline;
  const flagged: Side | null = fb ? plainSide("baseline+flags", fb.url, fb.pid, "/chat") : null;
  for (const side of [baseline, floor, ours, ...(flagged ? [flagged] : [])]) {
    await warmUpSide(side, opts.world, opts.quick ? 500 : WARM_UP_TURNS);
  }
  const out: ChatLevel[] = [];
  for (const [i, concurrency] of levels.entries()) {
    // Rotate which side goes first so a drifting machine load does not always favour the same one.
    const order = [baseline, floor, ours];
    const sides = [...order.slice(i % 3), ...order.slice(0, i % 3)];
    const measured = new Map<string, Measured>();
    for (const side of sides) measured.set(side.name, await run(side, concurrency));
    const mine = measured.get("michi")!;
    const base = measured.get("baseline")!;
    const fl = measured.get("floor")!;
    const rss = opts.app.rssKb();
    out.push({
      concurrency,
      ours: mine,
      baseline: base,
      floor: fl,
      rssMb: rss === null ? null : round(rss / 1024, 1),
      overheadP50Ms: round(mine.latencyMs.p50 - base.latencyMs.p50),
      overheadP99Ms: round(mine.latencyMs.p99 - base.latencyMs.p99),
      throughputRatio: round(mine.turnsPerSecond / base.turnsPerSecond, 3),
    });
  }
  const first = out[0]!;
  const top = out[out.length - 1]!;
  const flaggedTop = flagged ? await run(flagged, top.concurrency) : null;
  return {
    levels: out,
    overheadP50Ms: first.overheadP50Ms,
    overheadP99Ms: first.overheadP99Ms,
    turnsPerSecond: round(top.ours.turnsPerSecond),
    baselineTurnsPerSecond: round(top.baseline.turnsPerSecond),
    throughputRatio: top.throughputRatio,
    throughputAtConcurrency: top.concurrency,
    cpuMsPerTurn: top.ours.cpuMsPerTurn,
    baselineCpuMsPerTurn: top.baseline.cpuMsPerTurn,
    floorCpuMsPerTurn: top.floor.cpuMsPerTurn,
    floorTurnsPerSecond: round(top.floor.turnsPerSecond),
    cpuVsFloor:
      top.ours.cpuMsPerTurn && top.floor.cpuMsPerTurn
        ? round(top.ours.cpuMsPerTurn / top.floor.cpuMsPerTurn, 2)
        : null,
    overheadVsFloorP50Ms: round(first.ours.latencyMs.p50 - first.floor.latencyMs.p50),
    flaggedBaseline: flaggedTop
      ? {
          turnsPerSecond: round(flaggedTop.turnsPerSecond),
          cpuMsPerTurn: flaggedTop.cpuMsPerTurn,
          throughputRatio: round(top.ours.turnsPerSecond / flaggedTop.turnsPerSecond, 3),
        }
      : null,
  };
}
