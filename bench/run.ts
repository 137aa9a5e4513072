// `npm run bench`: measures what michi-chat's users pay for, beside baselines, on loopback only.
//   npm run bench                         widget, chat, streams, tokens, db (about 5-8 minutes)
//   npm run bench -- --quick              the same, smaller and shorter (under 2 minutes)
//   npm run bench -- --only=widget,tokens a subset (widget, chat, pglite, streams, tokens, db, faults, knowledge,
//                                         knowledge-bombs, channels, figures)
//   npm run bench -- --faults             adds the load and fault harness
//   npm run bench -- --build              rebuilds the production build first when its inputs changed
//   npm run bench -- --standalone=DIR     runs another standalone build (e.g. of another checkout) in place
//   npm run bench -- --only=knowledge --knowledge-db=pg   the knowledge part on a fresh Postgres database
//   npm run bench -- --only=live --live-open-rate=60       the live part's open-loop bot turns at 60/s (default:
//                                         40% of the closed-loop rate before the live load)
//   npm run bench -- --only=live --live-hops              also times instance A's bot turns hop by hop (pool,
//                                         statements, model, fetch; bench/live-hops.ts), which costs them CPU
//   npm run bench -- --only=channels --channels-db=pg     the channels part on a fresh Postgres database
//   npm run bench -- --only=knowledge --blind-only --details   only the blind questions (dev half), with misses;
//                                         --half=heldout runs the held-out half (for the lead, once, at the end)
// Prints a table and writes bench/results.json. Never part of `npm test`; never gates CI.
import { writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { benchChannels, type ChannelsResult } from "./channels";
import { benchChat, type ChatResult } from "./chat-overhead";
import { benchChatPglite, type ChatPgliteResult } from "./chat-pglite";
import { benchQueriesPerTurn, benchUsagePage, type QueriesResult, type UsageResult } from "./db";
import { benchDbFloor, type DbFloorResult } from "./db-floor";
import { benchFaults, type FaultsResult } from "./faults";
import { benchFigures, type FiguresResult } from "./figures";
import { benchKnowledge, type KnowledgeResult } from "./knowledge";
import type { BlindReport } from "./knowledge/blind";
import { benchBlind } from "./knowledge/blind-run";
import { benchKnowledgeBombs, type KnowledgeBombsResult } from "./knowledge-bombs";
import { type Client, makeClient } from "./lib/client";
import { cleanupAll, ROOT, stopChild } from "./lib/procs";
import { seedBench } from "./lib/seed";
import {
  type App,
  freshDatabase,
  postgresUrl,
  snapshotBuild,
  startApp,
  startBaseline,
  startFloor,
  startWorld,
  type World,
} from "./lib/servers";
import { benchLive, type LiveResult } from "./live";
import { printSummary } from "./report";
import { benchStreams, type StreamsResult } from "./streams";
import { benchTokens, type TokensResult } from "./tokens";
import { benchWidget, type WidgetResult } from "./widget";

const SECTIONS = [
  "widget",
  "chat",
  "pglite",
  "streams",
  "live",
  "tokens",
  "db",
  "faults",
  "knowledge",
  "knowledge-bombs",
  "channels",
  "figures",
] as const;
type Section = (typeof SECTIONS)[number];

function parseArgs(argv: string[]) {
  const only = argv.find((a) => a.startsWith("--only="))?.slice("--only=".length);
  const chosen = new Set<Section>(
    only
      ? only.split(",").map((s) => {
          if (!(SECTIONS as readonly string[]).includes(s)) {
            throw new Error(`unknown section "${s}" (choose from ${SECTIONS.join(", ")})`);
          }
          return s as Section;
        })
      : SECTIONS.filter((s) => s !== "faults"),
  );
  if (argv.includes("--faults")) chosen.add("faults");
  const standalone = argv.find((a) => a.startsWith("--standalone="))?.slice("--standalone=".length);
  const knowledgeDb = argv.find((a) => a.startsWith("--knowledge-db="))?.slice("--knowledge-db=".length);
  const openRate = argv.find((a) => a.startsWith("--live-open-rate="))?.slice("--live-open-rate=".length);
  const channelsDb = argv.find((a) => a.startsWith("--channels-db="))?.slice("--channels-db=".length);
  const half = argv.find((a) => a.startsWith("--half="))?.slice("--half=".length);
  if (half && half !== "dev" && half !== "heldout") throw new Error('--half is "dev" or "heldout"');
  return {
    half: half ?? "dev",
    blindOnly: argv.includes("--blind-only"),
    details: argv.includes("--details"),
    knowledgeDb,
    channelsDb,
    liveOpenRate: openRate ? Number(openRate) : undefined,
    liveHops: argv.includes("--live-hops"),
    quick: argv.includes("--quick"),
    build: argv.includes("--build"),
    standalone,
    sections: chosen,
  };
}

export type Results = {
  date: string;
  mode: "quick" | "full";
  machine: {
    cores: number;
    cpu: string;
    node: string;
    platform: string;
    loadAvgAtStart: number[];
    loadAvgAtEnd?: number[];
  };
  database: string;
  seconds?: number;
  widget?: WidgetResult;
  chat?: ChatResult;
  /** The chat levels on the embedded database (michi-chat only). */
  chatPglite?: ChatPgliteResult;
  streams?: StreamsResult;
  live?: LiveResult;
  tokens?: TokensResult;
  knowledge?: KnowledgeResult;
  knowledgeBombs?: KnowledgeBombsResult;
  /** Blind questions per site, the half asked for (bench/knowledge/blind.ts). */
  knowledgeBlind?: BlindReport[];
  channels?: ChannelsResult;
  figures?: FiguresResult;
  db?: Partial<QueriesResult & UsageResult> & { notes?: string[]; floor?: DbFloorResult };
  faults?: FaultsResult;
  skipped: string[];
};

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const started = performance.now();
  const log = (s: string) => console.log(s);
  const section = (name: string) => log(`${name} (at ${Math.round((performance.now() - started) / 1000)} s)`);
  const has = (s: Section) => args.sections.has(s);
  const serverUrl = await postgresUrl();
  const results: Results = {
    date: new Date().toISOString(),
    mode: args.quick ? "quick" : "full",
    machine: {
      cores: os.cpus().length,
      cpu: os.cpus()[0]?.model ?? "unknown",
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
      loadAvgAtStart: os.loadavg().map((l) => Math.round(l * 100) / 100),
    },
    database: serverUrl ? "Postgres (fresh database per benchmark)" : "PGlite (no Postgres reachable)",
    skipped: [],
  };
  log(`michi-chat bench (${results.mode}): ${[...args.sections].join(", ")}; ${results.database}`);

  const needsServer =
    has("chat") || has("pglite") || has("streams") || has("tokens") || has("db") || has("faults");
  const standalone =
    needsServer || has("widget")
      ? trySnapshot({ build: args.build, dir: args.standalone }, needsServer)
      : null;

  if (has("widget")) {
    section("widget weight");
    results.widget = benchWidget(standalone);
  }

  let world: World | undefined;
  if (needsServer || has("live")) world = await startWorld();

  // Streams and chat each get a freshly started server and database. V8 grows its heap lazily after a load
  // burst, so memory measured after the chat benchmark would say more about that burst than about held
  // streams; and a server that has just held and closed 1,000 streams spends more CPU per turn for a while
  // (2026-12-01: +20% for the framework floor, +40% for michi-chat's turn at 200 visitors, with no more live
  // heap than before: not a leak), so a turn measured after it would say more about that step than the turn.
  const fresh = async <T>(label: string, fn: (app: App, client: Client) => Promise<T>): Promise<T> => {
    if (!world || !standalone) throw new Error("bench: no world or build");
    const db = await freshDatabase(label, serverUrl);
    await seedBench(db, world.fixtureOrigin);
    const app = await startApp({ standalone, db, world });
    const client = makeClient(app.url, app.origin);
    try {
      return await fn(app, client);
    } finally {
      client.close();
      await app.stop();
    }
  };
  if (world && standalone && has("streams")) {
    section("live streams");
    const w = world;
    results.streams = await fresh("streams", (app, client) =>
      benchStreams({ app, world: w, client, quick: args.quick, log }),
    );
  }
  if (world && standalone && (has("chat") || has("tokens"))) {
    const w = world;
    await fresh("chat", async (app, client) => {
      if (has("chat")) {
        section("chat overhead per turn (michi-chat vs bare baseline)");
        const baseline = await startBaseline(w);
        const flagged = await startBaseline(w, { serverFlags: true });
        const floor = await startFloor(w);
        try {
          results.chat = await benchChat({
            app,
            baselineUrl: baseline.url,
            baselinePid: baseline.child.pid,
            flaggedBaseline: { url: flagged.url, pid: flagged.child.pid },
            floor: { url: floor.url, pid: floor.child.pid },
            world: w,
            sessions: client,
            quick: args.quick,
            log,
          });
        } finally {
          await stopChild(baseline.child);
          await stopChild(flagged.child);
          await stopChild(floor.child);
        }
      }
      if (has("tokens")) {
        section("tokens");
        results.tokens = await benchTokens({ world: w, client, log });
      }
    });
  }

  if (world && standalone && has("pglite")) {
    section("chat on the embedded database (PGlite)");
    results.chatPglite = await benchChatPglite({ standalone, world, quick: args.quick, log });
  }

  if (has("db")) {
    section("database");
    results.db = { notes: [] };
    if (serverUrl && standalone && world) {
      Object.assign(results.db, await benchQueriesPerTurn({ standalone, world, serverUrl, log }));
      results.db.floor = await benchDbFloor({
        serverUrl,
        fixtureOrigin: world.fixtureOrigin,
        quick: args.quick,
        log,
      });
    } else {
      results.db.notes!.push("queriesPerTurn needs Postgres (the counting proxy sits in front of it)");
    }
    Object.assign(results.db, await benchUsagePage({ serverUrl, quick: args.quick, log }));
  }

  if (has("live")) {
    // The platform's live handlers in bare instances (bench/live-host.ts), two of them on one Postgres.
    if (serverUrl && world) {
      section("live takeover transport");
      results.live = await benchLive({
        world,
        serverUrl,
        quick: args.quick,
        openLoopPerSec: args.liveOpenRate,
        hops: args.liveHops,
        log,
      });
    } else results.skipped.push("live: needs Postgres (two instances share one database)");
  }

  if (has("faults")) {
    if (serverUrl && standalone && world) {
      section("load and fault harness");
      results.faults = await benchFaults({ standalone, world, serverUrl, quick: args.quick, log });
    } else {
      results.skipped.push(
        "faults: needs Postgres (DATABASE_URL or postgres://postgres@127.0.0.1:5432/postgres)",
      );
    }
  }

  if (has("knowledge")) {
    section("knowledge");
    let databaseUrl: string | undefined;
    if (args.knowledgeDb === "pg") {
      if (!serverUrl) throw new Error("--knowledge-db=pg needs Postgres (DATABASE_URL)");
      const fresh = await freshDatabase("knowledge", serverUrl);
      if (fresh.kind === "pg") databaseUrl = fresh.url;
    }
    results.knowledgeBlind = await benchBlind({ log, half: args.half, details: args.details });
    const k = args.blindOnly ? null : await benchKnowledge({ log, quick: args.quick, databaseUrl });
    if (k) results.knowledge = k;
    else if (!args.blindOnly)
      results.skipped.push("knowledge: ../shared/knowledge-sites/logingov is not checked out");
  }

  if (has("knowledge-bombs")) {
    section("knowledge bombs (sitemaps and a PDF bomb beside the event loop)");
    results.knowledgeBombs = await benchKnowledgeBombs({ log });
  }

  if (has("figures")) {
    section("figure check (corpus precision and recall, CPU per turn)");
    results.figures = benchFigures({ quick: args.quick, log });
  }

  if (has("channels")) {
    // In this process, last: the channel world sets its own environment and restores it when it closes.
    section("channels");
    if (args.channelsDb === "pg" && !serverUrl)
      throw new Error("--channels-db=pg needs Postgres (DATABASE_URL)");
    results.channels = await benchChannels({
      quick: args.quick,
      log,
      // PGlite (the default deployment) unless asked; the world makes and drops its own database.
      databaseUrl: args.channelsDb === "pg" ? (serverUrl ?? undefined) : undefined,
    });
  }

  results.seconds = Math.round((performance.now() - started) / 1000);
  results.machine.loadAvgAtEnd = os.loadavg().map((l) => Math.round(l * 100) / 100);
  const file = path.join(ROOT, "bench/results.json");
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  printSummary(results);
  log(`\nwrote ${path.relative(process.cwd(), file)} in ${results.seconds} s`);
}

function trySnapshot(opts: { build: boolean; dir?: string }, required: boolean): string | null {
  try {
    return snapshotBuild(opts);
  } catch (err) {
    if (required) throw err;
    console.warn(`bench: ${(err as Error).message}; measuring public/ instead`);
    return null;
  }
}

process.on("SIGINT", () => void cleanupAll().then(() => process.exit(130)));
process.on("SIGTERM", () => void cleanupAll().then(() => process.exit(143)));

let exitCode = 0;
try {
  await main();
} catch (err) {
  console.error(`\nbench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  exitCode = 1;
} finally {
  await cleanupAll();
}
process.exit(exitCode);
