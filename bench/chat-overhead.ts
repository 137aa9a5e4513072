import { fakeModelControl, type Rule } from "../tests/support/fake-model";
import type { Client, TurnResult } from "./lib/client";
import { type LoadResult, mapLimit, runLoad } from "./lib/load";
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

export type ChatLevel = {
  concurrency: number;
  ours: LoadResult;
  baseline: LoadResult;
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

  const run = async (name: string, concurrency: number, turn: typeof oursTurn) => {
    // The fake model records every request; start each run with an empty log so memory stays flat.
    await model.reset();
    await model.setRules(CHAT_RULES);
    await runLoad({ concurrency, durationMs: Math.min(1500, durationMs / 2), turn }); // warm-up, not recorded
    const r = await runLoad({ concurrency, durationMs, turn });
    opts.log(
      `  ${name.padEnd(8)} c=${String(concurrency).padStart(3)}  ${r.answered} turns, ${r.failed} failed, ` +
        `p50 ${r.latencyMs.p50.toFixed(1)} ms, p99 ${r.latencyMs.p99.toFixed(1)} ms, ${r.turnsPerSecond.toFixed(1)} turns/s`,
    );
    return r;
  };

  const out: ChatLevel[] = [];
  for (const [i, concurrency] of levels.entries()) {
    // Alternate which side goes first so a drifting machine load does not always favour the same one.
    let ours: LoadResult;
    let baseline: LoadResult;
    if (i % 2 === 0) {
      baseline = await run("baseline", concurrency, baselineTurn);
      ours = await run("michi", concurrency, oursTurn);
    } else {
      ours = await run("michi", concurrency, oursTurn);
      baseline = await run("baseline", concurrency, baselineTurn);
    }
    out.push({
      concurrency,
      ours,
      baseline,
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
  };
}
