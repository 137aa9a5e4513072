import { fakeModelControl, type Rule } from "../tests/support/fake-model";
import type { Client, TurnResult } from "./lib/client";
import { type LoadResult, mapLimit, runLoad } from "./lib/load";
import { cpuMs } from "./lib/procs";
import { KEYS } from "./lib/seed";
import type { App, World } from "./lib/servers";
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

type Measured = LoadResult & { cpuMsPerTurn: number | null };

export type ChatLevel = {
  concurrency: number;
  ours: Measured;
  baseline: Measured;
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
};

export async function visitorTokens(client: Client, key: string, n: number, have: string[] = []) {
  const more = await mapLimit(Array.from({ length: Math.max(0, n - have.length) }), 20, () =>
    client.session(key),
  );
  return [...have, ...more];
}

export async function benchChat(opts: {
  app: App;
  baselineUrl: string;
  baselinePid: number | undefined;
  world: World;
  ours: Client;
  baseline: Client;
  quick: boolean;
  log: (s: string) => void;
}): Promise<ChatResult> {
  const levels = [1, 50, 200];
  const durationMs = opts.quick ? 3000 : 10_000;
  const model = fakeModelControl(opts.world.modelUrl);
  const tokens = await visitorTokens(opts.ours, KEYS.chat, Math.max(...levels));
  const conversations: (string | null)[] = tokens.map(() => null);
  const question = (n: number) => `bench-turn: is anything on this weekend? (${n})`;

  const oursTurn = async (v: number, n: number): Promise<TurnResult> => {
    const r = await opts.ours.chat(
      `/api/widget/${KEYS.chat}/chat`,
      {
        message: question(n),
        conversationId: n % TURNS_PER_CONVERSATION === 0 ? undefined : (conversations[v] ?? undefined),
      },
      { authorization: `Bearer ${tokens[v]}` },
    );
    if (r.conversationId) conversations[v] = r.conversationId;
    return r;
  };
  const baselineTurn = (_v: number, n: number) => opts.baseline.chat("/chat", { message: question(n) });

  const warmed = new Set<string>();
  const run = async (name: string, concurrency: number, turn: typeof oursTurn, pid: number | undefined) => {
    // The fake model records every request; start each run with an empty log so memory stays flat.
    await model.reset();
    await model.setRules(CHAT_RULES);
    // Warm-up, not recorded: JIT, connection pools, the first conversations. In quick mode only the first
    // level of each side warms up (at 200 visitors one warm-up round alone takes several seconds).
    if (!opts.quick || !warmed.has(name))
      await runLoad({ concurrency, durationMs: Math.min(1500, durationMs / 2), turn });
    warmed.add(name);
    const cpuBefore = cpuMs(pid);
    const load = await runLoad({ concurrency, durationMs, turn });
    const cpuAfter = cpuMs(pid);
    const r: Measured = {
      ...load,
      cpuMsPerTurn:
        cpuBefore === null || cpuAfter === null || load.answered === 0
          ? null
          : round((cpuAfter - cpuBefore) / load.answered, 2),
    };
    opts.log(
      `  ${name.padEnd(8)} c=${String(concurrency).padStart(3)}  ${r.answered} turns, ${r.failed} failed, ` +
        `p50 ${r.latencyMs.p50.toFixed(1)} ms, p99 ${r.latencyMs.p99.toFixed(1)} ms, ${r.turnsPerSecond.toFixed(1)} turns/s, ` +
        `${r.cpuMsPerTurn ?? "?"} CPU ms/turn`,
    );
    return r;
  };

  const out: ChatLevel[] = [];
  for (const [i, concurrency] of levels.entries()) {
    // Alternate which side goes first so a drifting machine load does not always favour the same one.
    let ours: Measured;
    let baseline: Measured;
    const michiPid = opts.app.child.pid;
    if (i % 2 === 0) {
      baseline = await run("baseline", concurrency, baselineTurn, opts.baselinePid);
      ours = await run("michi", concurrency, oursTurn, michiPid);
    } else {
      ours = await run("michi", concurrency, oursTurn, michiPid);
      baseline = await run("baseline", concurrency, baselineTurn, opts.baselinePid);
    }
    const rss = opts.app.rssKb();
    out.push({
      concurrency,
      ours,
      baseline,
      rssMb: rss === null ? null : round(rss / 1024, 1),
      overheadP50Ms: round(ours.latencyMs.p50 - baseline.latencyMs.p50),
      overheadP99Ms: round(ours.latencyMs.p99 - baseline.latencyMs.p99),
      throughputRatio: round(ours.turnsPerSecond / baseline.turnsPerSecond, 3),
    });
  }
  const first = out[0]!;
  const top = out[out.length - 1]!;
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
  };
}
