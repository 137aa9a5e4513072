// Live takeover transport (issue #28): N held live conversations (each a visitor's stream) and one console
// stream per business, with person-handled traffic both ways, on one instance and across two instances on
// one Postgres. Measures delivery time (from the sender's request until the other side has the event),
// whether every event arrived once and in order, memory per held conversation, and bot chat turns/s on the
// same instance without and while the live load runs. Instances: bench/live-host.ts (see there for what it
// is and is not); the client side: bench/live-client.ts. Runs from bench/run.ts (`npm run bench -- --only=live`).
import { randomBytes } from "node:crypto";
import { fakeModelControl } from "../tests/support/fake-model";
import { CHAT_RULES } from "./chat-overhead";
import { makeClient } from "./lib/client";
import { attributeDrop, measureCpu } from "./lib/cpu-share";
import { mapLimit } from "./lib/load";
import { sleep } from "./lib/procs";
import { KEYS, openDb, seedBench } from "./lib/seed";
import { freshDatabase, UNLIMITED, type World } from "./lib/servers";
import { round } from "./lib/stats";
import {
  botTurns,
  counters,
  type Host,
  hold,
  hopStats,
  type LoopStats,
  loopStats,
  memory,
  type OpenLoop,
  ORIGIN,
  openLoopTurns,
  startHost,
} from "./live-client";
import { outsideA, withCpuBurn } from "./live-control";
import type { Hops } from "./live-hops";
import type { LiveResult } from "./live-result";
import { type Conv, liveTraffic, seedLive } from "./live-traffic";

export type { LiveResult };

function describeOpen(o: OpenLoop): string {
  return `${round(o.servedPerSec, 1)}/${o.offeredPerSec} turns/s served, p50 ${round(o.latencyMs.p50)} ms, p99 ${round(o.latencyMs.p99)} ms, ${o.failed} failed`;
}

export async function benchLive(opts: {
  world: World;
  serverUrl: string;
  quick: boolean;
  /** Open-loop bot turns/s; default 40% of the closed-loop figure before the live load. */
  openLoopPerSec?: number;
  /** Times instance A's bot turns hop by hop (bench/live-hops.ts); off by default, it costs them CPU. */
  hops?: boolean;
  log: (s: string) => void;
}): Promise<LiveResult> {
  const n = opts.quick ? 100 : 500;
  const businesses = opts.quick ? 4 : 10;
  const seconds = opts.quick ? 4 : 10;
  const perSecond = opts.quick ? 20 : 50;
  const secret = randomBytes(32).toString("base64");
  const db = await freshDatabase("live", opts.serverUrl);
  if (db.kind !== "pg") throw new Error("the live bench needs Postgres");
  await seedBench(db, opts.world.fixtureOrigin);
  const handle = await openDb(db);
  let convs: Conv[];
  let consoles: string[];
  try {
    ({ convs, consoles } = await seedLive(handle.platform, { n, businesses, secret }));
  } finally {
    await handle.close();
  }
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: "production",
    DATABASE_URL: db.url,
    MICHI_PUBLIC_URL: ORIGIN,
    MICHI_SECRET_KEY: randomBytes(32).toString("base64"),
    MICHI_AUTH_SECRET: secret,
    OPENAI_BASE_URL: opts.world.modelUrl,
    OPENAI_API_KEY: "bench",
    MICHI_MODELS: "fake-small",
    MICHI_FETCH_ALLOW_HOSTS: opts.world.fixtureHost,
    MICHI_FETCH_EXTRA_CA: opts.world.caFile,
    MICHI_LOG_LEVEL: "warn",
    ...UNLIMITED,
    ...(opts.hops ? { BENCH_LIVE_HOPS: "1" } : {}),
  };
  const model = fakeModelControl(opts.world.modelUrl);
  await model.reset();
  await model.setRules(CHAT_RULES);
  const a = await startHost(env);
  const b = await startHost(env);
  const held: { close(): void }[] = [];
  try {
    const client = makeClient(a.url, ORIGIN);
    const chatTokens = await mapLimit(Array.from({ length: 10 }), 10, () => client.session(KEYS.chat));
    // Warm-up: V8 settles the turn's code first, so "before" is not measured on half-optimised code.
    await botTurns(client, chatTokens, opts.quick ? 3000 : 15_000);
    // CPU per process over each phase (bench/lib/cpu-share.ts): less noisy than rates on a shared machine
    // (another engineer's load delays a turn but does not make it cost more CPU), and it says whose it is.
    const groups = {
      pids: { instanceA: a.pid, instanceB: b.pid, world: opts.world.child.pid },
      database: new URL(db.url).pathname.slice(1),
    };
    // Instance A's event-loop delay and GC pauses per phase, beside its CPU: where a bot turn's tail comes from.
    // And its bot turns hop by hop (bench/live-hops.ts): what a tail turn waited for.
    const loopA: Record<string, LoopStats> = {};
    const hopsA: Record<string, Hops> = {};
    const cpuOf = async <T>(phase: string, fn: () => Promise<T>) => {
      await Promise.all([loopStats(a), hopStats(a)]);
      const out = await measureCpu(groups, fn);
      [loopA[phase], hopsA[phase]] = await Promise.all([loopStats(a), hopStats(a)]);
      return out;
    };
    const closedLoop = () => botTurns(client, chatTokens, seconds * 1000);
    const qBot = await counters(a);
    const [without, cpuBefore] = await cpuOf("before", closedLoop);
    const queriesPerBotTurn = ((await counters(a)).queries - qBot.queries) / (without * seconds);
    opts.log(`  bot turns/s without live load: ${round(without, 1)} (closed loop, 10 visitors)`);
    // Open loop: well below what the machine serves, so the figure is what a visitor notices (latency), not
    // how the cores were shared out at saturation.
    const offered = opts.openLoopPerSec ?? Math.max(5, Math.round(without * 0.4));
    const openTokens = await mapLimit(Array.from({ length: 40 }), 10, () => client.session(KEYS.chat));
    const openLoop = () => openLoopTurns(client, openTokens, offered, seconds * 1000);
    const [openBefore, cpuOpenBefore] = await cpuOf("openBefore", openLoop);
    opts.log(`  open loop before: ${describeOpen(openBefore)}`);
    const idle = await memory(a);

    const { arrive, run: traffic } = liveTraffic(convs, { seconds, perSecond });

    const opened = performance.now();
    // Each visitor from an address of their own, as in life (the bench host passes the header on, as the
    // production server does with the socket's address): HELD_STREAM_LIMITS bounds streams per address.
    await mapLimit(convs, 50, async (c) => {
      const i = convs.indexOf(c);
      const s = hold(
        `${a.url}/api/widget/${c.key}/conversations/${c.id}/events`,
        { authorization: `Bearer ${c.token}`, "x-michi-peer": `10.9.${i >> 8}.${i & 255}` },
        arrive("agent_message"),
      );
      held.push(s);
      await s.ready;
    });
    const openConsoles = async (host: Host) => {
      const list = consoles.map((id) =>
        hold(`${host.url}/bench/console/${id}`, {}, arrive("visitor_message")),
      );
      await Promise.all(list.map((s) => s.ready));
      return list;
    };
    let consoleStreams = await openConsoles(a);
    const openSeconds = (performance.now() - opened) / 1000;
    await sleep(1000);
    const heldMemory = await memory(a);
    opts.log(
      `  ${n} live conversations held on one instance, ${businesses} consoles; opened in ${round(openSeconds, 1)} s`,
    );

    // One instance alone, then with bot turns on it at the same time, then the consoles move to B.
    // What the held streams cost with no traffic at all (heartbeats, re-reads), so a message's CPU is its own.
    const idleMs = 5000;
    const q0 = await counters(a);
    const [, cpuHeld] = await cpuOf("heldIdle", () => sleep(idleMs));
    const q1 = await counters(a);
    // Holding alone: the bot turns again with every conversation and console held and no live traffic (the
    // streams' heartbeats and slow re-reads only), so what holding costs them is apart from what traffic does.
    const [heldTurns, cpuHeldClosed] = await cpuOf("held", closedLoop);
    const [openHeld, cpuOpenHeld] = await cpuOf("openHeld", openLoop);
    opts.log(
      `  with ${n} held, no traffic: ${round(heldTurns, 1)} turns/s; open loop ${describeOpen(openHeld)}`,
    );
    const q2 = await counters(a);
    const t1 = performance.now();
    const [oneInstance, cpuAlone] = await cpuOf("liveAlone", () => traffic(a, a));
    const heldQueries = ((q1.queries - q0.queries) * (performance.now() - t1)) / idleMs;
    const queriesPerLiveMessage = ((await counters(a)).queries - q2.queries - heldQueries) / oneInstance.sent;
    const cpuPerMessage = (cpuAlone.instanceA - cpuHeld.instanceA) / perSecond;
    opts.log(
      `  one instance: p99 visitor→agent ${round(oneInstance.visitorToAgent.p99)} ms, agent→visitor ${round(oneInstance.agentToVisitor.p99)} ms`,
    );
    // Every append on B, every stream still on A: A's CPU is then the transport's alone (the wake-up, the
    // read, the SSE writes), B's the appends' (the bench's stand-in for the use cases' transactions).
    const qa = await counters(a);
    const [split, cpuSplit] = await cpuOf("transportOnly", () => traffic(b, b));
    const readsPerMessage = ((await counters(a)).queries - qa.queries - heldQueries) / split.sent;
    const splitSecs = split.sent / perSecond;
    const cpuMsPerDelivery = (cpuSplit.instanceA - cpuHeld.instanceA) / perSecond;
    const cpuMsPerAppend = cpuSplit.instanceB / perSecond;
    opts.log(
      `  appends on B, streams on A: A ${round(cpuMsPerDelivery, 2)} ms and ${round(readsPerMessage, 2)} statements per message, B ${round(cpuMsPerAppend, 2)} ms (${splitSecs} s)`,
    );
    const [[underBotLoad, during], cpuDuring] = await cpuOf("during", () =>
      Promise.all([traffic(a, a), closedLoop()]),
    );
    opts.log(
      `  with bot turns: ${round(during, 1)} turns/s; p99 visitor→agent ${round(underBotLoad.visitorToAgent.p99)} ms, agent→visitor ${round(underBotLoad.agentToVisitor.p99)} ms`,
    );
    const [[underOpenLoop, openDuring], cpuOpenDuring] = await cpuOf("openDuring", () =>
      Promise.all([traffic(a, a), openLoop()]),
    );
    opts.log(
      `  open loop during: ${describeOpen(openDuring)}; live p99 ${round(underOpenLoop.agentToVisitor.p99)} ms`,
    );
    for (const s of consoleStreams) s.close();
    consoleStreams = await openConsoles(b);
    const twoInstances = await traffic(a, b);
    opts.log(
      `  two instances: p99 visitor→agent ${round(twoInstances.visitorToAgent.p99)} ms, agent→visitor ${round(twoInstances.agentToVisitor.p99)} ms`,
    );
    for (const s of consoleStreams) s.close();
    for (const s of held.splice(0)) s.close();
    // Again without: the machine is shared, so the figure beside "during" is the mean of before and after.
    const [after, cpuAfter] = await cpuOf("after", closedLoop);
    opts.log(`  bot turns/s without live load, after: ${round(after, 1)}`);
    const [openAfter, cpuOpenAfter] = await cpuOf("openAfter", openLoop);
    opts.log(`  open loop after: ${describeOpen(openAfter)}`);
    // The control: the same bot turns while synthetic CPU takes what the live load took alone (above the held
    // streams' own), in the same places: on instance A's event loop what A spent, in other processes the rest
    // (B, Postgres, the bench, the world). Service like this phase's during the live load means the live
    // load cost the bot turns its CPU and nothing more (no waits of its own, no bursts beyond its share).
    const burn = {
      onA: cpuAlone.instanceA - cpuHeld.instanceA,
      outside: outsideA(cpuAlone) - outsideA(cpuHeld),
    };
    const [[closedSynthetic], cpuClosedSynthetic] = await cpuOf("closedSynthetic", () =>
      withCpuBurn(a, burn, closedLoop),
    );
    opts.log(`  bot turns/s with synthetic CPU in place of the live load: ${round(closedSynthetic, 1)}`);
    const [[openSynthetic, burnt], cpuOpenSynthetic] = await cpuOf("openSynthetic", () =>
      withCpuBurn(a, burn, openLoop),
    );
    opts.log(
      `  open loop with synthetic CPU (${round(burn.onA)} ms/s on A, ${round(burnt)} of ${round(burn.outside)} outside): ${describeOpen(openSynthetic)}`,
    );
    client.close();
    const mb = (kb: number | null) => (kb === null ? null : round(kb / 1024, 1));
    return {
      conversations: n,
      consoles: businesses,
      openSeconds: round(openSeconds, 2),
      rssIdleMb: mb(idle.rss / 1024),
      rssHeldMb: mb(heldMemory.rss / 1024),
      kbPerConversation: round((heldMemory.heap - idle.heap) / 1024 / n, 1),
      rssKbPerConversation: round((heldMemory.rss - idle.rss) / 1024 / n, 1),
      oneInstance,
      underBotLoad,
      twoInstances,
      chatTurnsPerSec: {
        before: round(without, 1),
        during: round(during, 1),
        after: round(after, 1),
        ratio: round((2 * during) / (without + after), 2),
        held: round(heldTurns, 1),
        heldRatio: round((2 * heldTurns) / (without + after), 2),
        synthetic: round(closedSynthetic, 1),
        syntheticRatio: round((2 * closedSynthetic) / (without + after), 2),
      },
      messagesPerSec: perSecond,
      cpuMsPerLiveMessage: round(cpuPerMessage, 2),
      queriesPerLiveMessage: round(queriesPerLiveMessage, 2),
      queriesPerSecondHeld: round((q1.queries - q0.queries) / (idleMs / 1000), 1),
      queriesPerBotTurn: round(queriesPerBotTurn, 2),
      transportOnly: {
        cpuMsPerMessage: round(cpuMsPerDelivery, 2),
        queriesPerMessage: round(readsPerMessage, 2),
        appendCpuMsPerMessage: round(cpuMsPerAppend, 2),
        delivery: split,
      },
      cpuMsPerSecondHeld: cpuHeld.instanceA,
      cpuMsPerBotTurn: {
        before: round(cpuBefore.instanceA / without, 2),
        after: round(cpuAfter.instanceA / after, 2),
      },
      cpuMsDuring: round(cpuDuring.instanceA * seconds),
      cpuShare: {
        before: cpuBefore,
        heldIdle: cpuHeld,
        held: cpuHeldClosed,
        openHeld: cpuOpenHeld,
        liveAlone: cpuAlone,
        during: cpuDuring,
        after: cpuAfter,
        openBefore: cpuOpenBefore,
        openDuring: cpuOpenDuring,
        openAfter: cpuOpenAfter,
        closedSynthetic: cpuClosedSynthetic,
        openSynthetic: cpuOpenSynthetic,
      },
      loopA,
      hopsA: Object.fromEntries(Object.entries(hopsA).filter(([, h]) => h.n > 0)),
      drop: attributeDrop({
        before: { cpu: cpuBefore, turnsPerSec: without },
        liveAlone: cpuAlone,
        during: { turnsPerSec: during },
        after: { cpu: cpuAfter, turnsPerSec: after },
      }),
      openLoop: {
        before: openBefore,
        held: openHeld,
        during: openDuring,
        after: openAfter,
        live: underOpenLoop,
        synthetic: {
          ...openSynthetic,
          onAMsPerSec: round(burn.onA),
          outsideMsPerSec: round(burn.outside),
          burntOutsideMsPerSec: round(burnt),
        },
      },
    };
  } finally {
    for (const s of held) s.close();
    await a.stop();
    await b.stop();
  }
}
