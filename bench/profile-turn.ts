// Not part of `npm run bench`: a CPU profile of the production server under the chat benchmark's turn, to
// see where a turn's CPU goes. `npx tsx --conditions=react-server bench/profile-turn.ts [DIR] [visitors] [s]`
// writes a .cpuprofile into DIR (default /tmp/michi-prof) and prints the heaviest functions and packages by
// self time.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { measureLevel, michiSide } from "./chat-overhead";
import { makeClient } from "./lib/client";
import { cleanupAll } from "./lib/procs";
import { seedBench } from "./lib/seed";
import { freshDatabase, postgresUrl, snapshotBuild, startApp, startWorld } from "./lib/servers";

const [dir = "/tmp/michi-prof", visitors = "20", seconds = "8", standalone] = process.argv.slice(2);

type Node = {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
};

/** Self time by package and by function, over the samples of the last `lastMs` of the profile only. */
function summarize(file: string, lastMs: number) {
  const prof = JSON.parse(readFileSync(file, "utf8")) as {
    nodes: Node[];
    samples: number[];
    timeDeltas: number[];
  };
  // Start-up and warm-up are left out: only samples taken in the measured level count.
  const hits = new Map<number, number>();
  let since = 0;
  let total = 0;
  for (let i = prof.samples.length - 1; i >= 0 && since < lastMs * 1000; i--) {
    since += prof.timeDeltas[i] ?? 0;
    hits.set(prof.samples[i]!, (hits.get(prof.samples[i]!) ?? 0) + 1);
    total++;
  }
  const byFn = new Map<string, number>();
  const byPkg = new Map<string, number>();
  for (const n of prof.nodes) {
    n.hitCount = hits.get(n.id) ?? 0;
    const url = n.callFrame.url;
    const pkg =
      url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1] ??
      (url.includes(".next/server")
        ? "app (.next/server)"
        : url
          ? url.startsWith("node:")
            ? url
            : "other"
          : n.callFrame.functionName || "(native)");
    byPkg.set(pkg, (byPkg.get(pkg) ?? 0) + n.hitCount);
    const fn = `${n.callFrame.functionName || "(anon)"} ${url.split("/").slice(-2).join("/")}:${n.callFrame.lineNumber}`;
    byFn.set(fn, (byFn.get(fn) ?? 0) + n.hitCount);
  }
  const top = (m: Map<string, number>, k: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, k)
      .map(([name, v]) => `${((v / total) * 100).toFixed(1).padStart(5)}%  ${name}`);
  console.log(
    `\n${total} samples\nby package:\n${top(byPkg, 25).join("\n")}\n\nby function:\n${top(byFn, 40).join("\n")}`,
  );
}

try {
  const world = await startWorld();
  const serverUrl = await postgresUrl();
  const db = await freshDatabase("prof", serverUrl);
  await seedBench(db, world.fixtureOrigin);
  const app = await startApp({
    standalone: standalone ?? snapshotBuild({ build: false }),
    db,
    world,
    nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${dir}`],
  });
  const client = makeClient(app.url, app.origin);
  const side = await michiSide(app, client, Number(visitors));
  const r = await measureLevel({
    side,
    world,
    concurrency: Number(visitors),
    durationMs: Number(seconds) * 1000,
    warmUp: true,
  });
  console.log(`${r.answered} turns, ${r.failed} failed, ${r.cpuMsPerTurn} CPU ms/turn`);
  client.close();
  await app.stop();
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".cpuprofile"))
    .sort();
  summarize(path.join(dir, files[files.length - 1]!), Number(seconds) * 1000);
} finally {
  await cleanupAll();
}
process.exit(0);
