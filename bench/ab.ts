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
import { measureLevel, michiSide } from "./chat-overhead";
import { makeClient } from "./lib/client";
import { cleanupAll } from "./lib/procs";
import { seedBench } from "./lib/seed";
import { freshDatabase, postgresUrl, snapshotBuild, startApp, startWorld } from "./lib/servers";

const words = (s: string | undefined) => (s ?? "").split(" ").filter(Boolean);
const C = Number(process.env.C ?? 200);
const SLICE = Number(process.env.SLICE ?? 2000);
const ROUNDS = Number(process.env.ROUNDS ?? 10);
type Slice = { cpu: number; tps: number; p50: number };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

try {
  const world = await startWorld();
  const db = await freshDatabase("ab", await postgresUrl());
  await seedBench(db, world.fixtureOrigin);
  const start = (dir: string | undefined, args: string[], env: Record<string, string>) =>
    startApp({
      standalone: !dir || dir === "main" ? snapshotBuild({ build: false }) : dir,
      db,
      world,
      nodeArgs: args,
      env,
    });
  const apps = [
    await start(process.env.A, words(process.env.ARGS_A), JSON.parse(process.env.ENV_A ?? "{}")),
    await start(process.env.B, words(process.env.ARGS_B), JSON.parse(process.env.ENV_B ?? "{}")),
  ];
  const sides = await Promise.all(
    apps.map(async (app, i) => ({
      name: i === 0 ? "A" : "B",
      side: await michiSide(app, makeClient(app.url, app.origin), C),
      slices: [] as Slice[],
    })),
  );
  for (const s of sides)
    await measureLevel({ side: s.side, world, concurrency: C, durationMs: SLICE, warmUp: true });
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
  const [a, b] = sides as [(typeof sides)[0], (typeof sides)[0]];
  const cpuRatio = median(a.slices.map((x, i) => b.slices[i]!.cpu / x.cpu));
  const tpsRatio = median(a.slices.map((x, i) => b.slices[i]!.tps / x.tps));
  console.log(`B/A per round, median: CPU per turn ${cpuRatio.toFixed(3)}, turns/s ${tpsRatio.toFixed(3)}`);
  for (const s of sides) {
    console.log(
      `${s.name}: mean ${mean(s.slices.map((x) => x.cpu)).toFixed(2)} CPU ms/turn, ` +
        `${mean(s.slices.map((x) => x.tps)).toFixed(1)} turns/s, p50 ${mean(s.slices.map((x) => x.p50)).toFixed(1)} ms`,
    );
  }
  for (const app of apps) await app.stop();
} finally {
  await cleanupAll();
}
process.exit(0);
