// Not part of `npm run bench`: two production servers side by side on one database, measured in interleaved
// slices, so that a machine whose speed drifts (this one moves by ±20% within minutes) affects both alike.
// For a change too small to see between two separate runs: a build against another, or Node flags.
//
//   A=<standalone dir | main> B=<standalone dir | main> [ARGS_A="--flag"] [ARGS_B=…] [ENV_B='{"K":"v"}']
//   [C=200] [ROUNDS=10] [SLICE=2000] npx tsx --conditions=react-server bench/ab.ts
//
// `main` is this checkout's build (npm run build). ARGS_* come after the production server's own flags
// (scripts/server-flags.mjs), so they override them. It prints each slice, the median of B/A per round (CPU
// per turn and turns per second, the pair measured back to back) and the means.
//
// With BASELINE=1 the bare baseline (bench/lib/baseline.ts) is a third side in every round, and each build's
// throughput ratio (its turns/s over the baseline's in the same round) is printed too. With QUERIES=1 each
// build's statements per follow-up turn are counted at the end (db.ts, through the counting proxy).

import { measureLevel, michiSide, plainSide, type Side, WARM_UP_TURNS, warmUpSide } from "./chat-overhead";
import { benchQueriesPerTurn } from "./db";
import { makeClient } from "./lib/client";
import { cleanupAll } from "./lib/procs";
import { seedBench } from "./lib/seed";
import {
  freshDatabase,
  postgresUrl,
  snapshotBuild,
  startApp,
  startBaseline,
  startWorld,
} from "./lib/servers";

const words = (s: string | undefined) => (s ?? "").split(" ").filter(Boolean);
const C = Number(process.env.C ?? 200);
const SLICE = Number(process.env.SLICE ?? 2000);
const ROUNDS = Number(process.env.ROUNDS ?? 10);
type Slice = { cpu: number; tps: number; p50: number };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

try {
  const world = await startWorld();
  const serverUrl = await postgresUrl();
  const db = await freshDatabase("ab", serverUrl);
  await seedBench(db, world.fixtureOrigin);
  const standalone = (dir: string | undefined) =>
    !dir || dir === "main" ? snapshotBuild({ build: false }) : dir;
  const dirs = [standalone(process.env.A), standalone(process.env.B)] as const;
  const start = (dir: string, args: string[], env: Record<string, string>) =>
    startApp({
      standalone: dir,
      db,
      world,
      nodeArgs: args,
      env,
    });
  const apps = [
    await start(dirs[0], words(process.env.ARGS_A), JSON.parse(process.env.ENV_A ?? "{}")),
    await start(dirs[1], words(process.env.ARGS_B), JSON.parse(process.env.ENV_B ?? "{}")),
  ];
  const sides: { name: string; side: Side; slices: Slice[] }[] = await Promise.all(
    apps.map(async (app, i) => ({
      name: i === 0 ? "A" : "B",
      side: await michiSide(app, makeClient(app.url, app.origin), C),
      slices: [] as Slice[],
    })),
  );
  if (process.env.BASELINE === "1") {
    const b = await startBaseline(world);
    sides.push({ name: "baseline", side: plainSide("baseline", b.url, b.child.pid, "/chat"), slices: [] });
  }
  // Each side's server in its steady state first (see warmUpSide), then a short slice at the measured level.
  const warm = Number(process.env.WARM ?? WARM_UP_TURNS);
  for (const s of sides) {
    await warmUpSide(s.side, world, warm);
    await measureLevel({ side: s.side, world, concurrency: C, durationMs: SLICE, warmUp: true });
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const s of round % 2 === 0 ? sides : [...sides].reverse()) {
      const m = await measureLevel({ side: s.side, world, concurrency: C, durationMs: SLICE, warmUp: false });
      s.slices.push({ cpu: m.cpuMsPerTurn ?? Number.NaN, tps: m.turnsPerSecond, p50: m.latencyMs.p50 });
      console.log(
        `${s.name} cpu ${m.cpuMsPerTurn} ms/turn, ${m.turnsPerSecond.toFixed(1)} turns/s, ` +
          `p50 ${m.latencyMs.p50.toFixed(1)} ms, ${m.failed} failed`,
      );
    }
  }
  const [a, b, base] = sides as [(typeof sides)[0], (typeof sides)[0], (typeof sides)[0] | undefined];
  const cpuRatio = median(a.slices.map((x, i) => b.slices[i]!.cpu / x.cpu));
  const tpsRatio = median(a.slices.map((x, i) => b.slices[i]!.tps / x.tps));
  console.log(`B/A per round, median: CPU per turn ${cpuRatio.toFixed(3)}, turns/s ${tpsRatio.toFixed(3)}`);
  if (base) {
    for (const s of [a, b]) {
      const ratio = median(s.slices.map((x, i) => x.tps / base.slices[i]!.tps));
      console.log(
        `${s.name}: throughput ratio to the baseline in the same round, median ${ratio.toFixed(3)}`,
      );
    }
  }
  for (const s of sides) {
    console.log(
      `${s.name}: mean ${mean(s.slices.map((x) => x.cpu)).toFixed(2)} CPU ms/turn, ` +
        `${mean(s.slices.map((x) => x.tps)).toFixed(1)} turns/s, p50 ${mean(s.slices.map((x) => x.p50)).toFixed(1)} ms`,
    );
  }
  for (const app of apps) await app.stop();
  if (process.env.QUERIES === "1" && serverUrl) {
    for (const [i, dir] of dirs.entries()) {
      const q = await benchQueriesPerTurn({ standalone: dir, world, serverUrl, log: console.log });
      console.log(
        `${i === 0 ? "A" : "B"}: ${q.followUpTurn} statements per follow-up turn, ${q.newConversationTurn} for a new ` +
          `conversation; ${q.breakdown.map((r) => `${r.perTurn}× ${r.sql.slice(0, 60)}`).join(" | ")}`,
      );
    }
  }
} finally {
  await cleanupAll();
}
process.exit(0);
