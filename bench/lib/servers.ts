import type { ChildProcess } from "node:child_process";
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { SERVER_NODE_FLAGS } from "../../scripts/server-flags.mjs";
import { onLowPort } from "../../tests/support/ports";
import { type PgProxy, startPgProxy } from "./pg-proxy";
import { onCleanup, ROOT, readyMessage, rssKb, sleep, spawnTracked, stopChild } from "./procs";
import { seedBench } from "./seed";
import type { WorldInfo } from "./world";

// Everything a benchmark talks to: the world process (fake model + tenant site), the baseline server, a fresh
// database, and the production server (michi-server.mjs from a private copy of the standalone build).

const BUILD_LOCK = "/tmp/michi-build.lock";
export const DEFAULT_PG = "postgres://postgres@127.0.0.1:5432/postgres";

const work = mkdtempSync(path.join(tmpdir(), "michi-bench-"));
onCleanup(() => rmSync(work, { recursive: true, force: true }));

export type World = WorldInfo & { child: ChildProcess };

export async function startWorld(): Promise<World> {
  const child = spawnTracked(path.join(ROOT, "bench/lib/world.ts"), [path.join(work, "fixture-ca.pem")], {
    ts: true,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const info = await readyMessage<WorldInfo>(child, "the world process (fake model + fixture site)");
  return { ...info, child };
}

/**
 * The bare baseline server: with Node's defaults (the yardstick of issue 17), or with `serverFlags`, the
 * production server's own Node flags, so that a flag's gain can be told apart from the platform's.
 */
export async function startBaseline(
  world: World,
  opts: { serverFlags?: boolean } = {},
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawnTracked(
    path.join(ROOT, "bench/lib/baseline.ts"),
    [world.modelUrl, world.caFile, `${world.fixtureOrigin}/api/events.json`],
    {
      ts: true,
      nodeArgs: opts.serverFlags ? [...SERVER_NODE_FLAGS] : [],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    },
  );
  const { port } = await readyMessage<{ port: number }>(child, "the baseline server");
  return { url: `http://127.0.0.1:${port}`, child };
}

/**
 * The framework floor (floor-server.ts): the production server's request path and the baseline's turn,
 * started with the production server's Node flags, as michi-chat's server is.
 */
export async function startFloor(world: World): Promise<{ url: string; child: ChildProcess }> {
  const child = spawnTracked(
    path.join(ROOT, "bench/lib/floor-server.ts"),
    [world.modelUrl, world.caFile, `${world.fixtureOrigin}/api/events.json`, "fake-small"],
    { ts: true, nodeArgs: [...SERVER_NODE_FLAGS], stdio: ["ignore", "inherit", "inherit", "ipc"] },
  );
  const { port } = await readyMessage<{ port: number }>(child, "the framework floor server");
  return { url: `http://127.0.0.1:${port}`, child };
}

/** The Postgres server of DATABASE_URL (or the local default) when it answers, else null. */
export async function postgresUrl(): Promise<string | null> {
  const url = process.env.DATABASE_URL || DEFAULT_PG;
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    await c.query("select 1");
    return url;
  } catch {
    return null;
  } finally {
    await c.end().catch(() => {});
  }
}

export type BenchDb = { kind: "pg"; url: string } | { kind: "pglite"; dataDir: string };

/** A fresh, empty database on the Postgres server (dropped at cleanup), or a PGlite directory without one. */
export async function freshDatabase(label: string, serverUrl: string | null): Promise<BenchDb> {
  if (!serverUrl) return { kind: "pglite", dataDir: path.join(work, `${label}-data`) };
  const name = `michi_bench_${label}_${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  await admin.end();
  onCleanup(async () => {
    const c = new pg.Client({ connectionString: serverUrl });
    await c.connect();
    await c.query(`drop database if exists "${name}" with (force)`);
    await c.end();
  });
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return { kind: "pg", url: u.toString() };
}

/**
 * A private copy of the production build, taken under the build lock so a parallel `npm run build` can neither
 * hand us a half-written tree nor change it under a running benchmark. With `build`, the build is refreshed
 * first when its inputs changed (scripts/build.mjs --if-stale).
 */
export function snapshotBuild(opts: { build: boolean; dir?: string }): string {
  if (opts.dir) {
    const dir = path.resolve(opts.dir);
    if (!existsSync(path.join(dir, "michi-server.mjs"))) throw new Error(`${dir} has no michi-server.mjs`);
    return dir;
  }
  const dest = path.join(work, "standalone");
  const steps = [
    ...(opts.build ? ["node scripts/build.mjs --if-stale >&2"] : []),
    "test -f .next/standalone/michi-server.mjs",
    `cp -a .next/standalone "${dest}"`,
  ];
  try {
    execFileSync("flock", ["-n", BUILD_LOCK, "true"]);
  } catch {
    console.log(`bench: waiting for ${BUILD_LOCK} (another build or e2e run holds it)`);
  }
  try {
    execFileSync("flock", [BUILD_LOCK, "sh", "-c", steps.join(" && ")], {
      cwd: ROOT,
      stdio: ["ignore", "inherit", "inherit"],
    });
  } catch {
    throw new Error(
      "no production build: run `flock /tmp/michi-build.lock npm run build` (or npm run bench -- --build)",
    );
  }
  if (!existsSync(path.join(dest, ".next/server/app/api/widget"))) {
    throw new Error("the production build has no widget API; rebuild with `npm run bench -- --build`");
  }
  return dest;
}

export type App = {
  url: string;
  origin: string;
  child: ChildProcess;
  /** The server's stdout and stderr (pino JSON lines). */
  logFile: string;
  rssKb(): number | null;
  /**
   * Event-loop delay inside the server since the previous call (bench/lib/loop-probe.mjs), then starts over:
   * call it when a level starts, and again when it ends.
   */
  loopDelay(): Promise<LoopDelay | null>;
  stop(): Promise<void>;
};

export type LoopDelay = { samples: number; p50: number; p99: number; max: number; mean: number };

const PROBE = path.join(ROOT, "bench/lib/loop-probe.mjs");

async function readProbe(child: ChildProcess, file: string, lastSeq: number) {
  if (child.exitCode !== null || !child.pid) return null;
  child.kill("SIGUSR2");
  // The server answers on its own event loop, which may be busy: wait for the new snapshot, up to 10 s.
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    try {
      const snap = JSON.parse(readFileSync(file, "utf8")) as LoopDelay & { seq: number };
      if (snap.seq > lastSeq) return snap;
    } catch {
      // not written yet, or caught mid-write
    }
    await sleep(25);
  }
  return null;
}

/** The limits a load test must lift: every visitor is on one IP and one tenant. */
export const UNLIMITED: Record<string, string> = {
  MICHI_RATE_VISITOR_PER_MIN: "100000",
  MICHI_RATE_IP_PER_MIN: "100000",
  MICHI_RATE_TENANT_PER_MIN: "1000000",
  MICHI_MAX_STREAMS_PER_TENANT: "100000",
  MICHI_DEFAULT_MONTHLY_TOKENS: "0",
};

type AppOptions = {
  standalone: string;
  db: BenchDb;
  /** Overrides the database URL the server uses (e.g. the TCP proxy in front of Postgres). */
  databaseUrl?: string;
  world: World;
  env?: Record<string, string>;
  /** Extra node flags for the server, e.g. --cpu-prof. */
  nodeArgs?: string[];
};

/** The server on a port below the ephemeral range, tried again on another one if that port was taken. */
export function startApp(opts: AppOptions): Promise<App> {
  return onLowPort((port) => startAppOn({ ...opts, port }));
}

async function startAppOn(opts: AppOptions & { port: number }): Promise<App> {
  const url = `http://127.0.0.1:${opts.port}`;
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: "production",
    PORT: String(opts.port),
    HOSTNAME: "127.0.0.1",
    MICHI_PUBLIC_URL: url,
    MICHI_SECRET_KEY: randomBytes(32).toString("base64"),
    MICHI_AUTH_SECRET: randomBytes(32).toString("base64"),
    MICHI_ADMIN_EMAIL: "bench@example.com",
    MICHI_ADMIN_PASSWORD: "bench-operator-password",
    OPENAI_BASE_URL: opts.world.modelUrl,
    OPENAI_API_KEY: "bench",
    MICHI_MODELS: "fake-small",
    MICHI_FETCH_ALLOW_HOSTS: opts.world.fixtureHost,
    MICHI_FETCH_EXTRA_CA: opts.world.caFile,
    MICHI_LOG_LEVEL: process.env.MICHI_LOG_LEVEL ?? "warn",
    NEXT_TELEMETRY_DISABLED: "1",
    ...UNLIMITED,
    ...opts.env,
  };
  if (opts.db.kind === "pg") env.DATABASE_URL = opts.databaseUrl ?? opts.db.url;
  else env.MICHI_DATA_DIR = opts.db.dataDir;
  const logFile = path.join(work, `app-${opts.port}.log`);
  const loopFile = path.join(work, `loop-${opts.port}.json`);
  env.MICHI_BENCH_LOOP_FILE = loopFile;
  const out = openSync(logFile, "a");
  const child = spawnTracked(path.join(opts.standalone, "michi-server.mjs"), [], {
    cwd: opts.standalone,
    env,
    // The production server's own flags first (scripts/server-flags.mjs), so the benchmark measures what runs.
    nodeArgs: [...SERVER_NODE_FLAGS, ...(opts.nodeArgs ?? []), "--import", PROBE],
    stdio: ["ignore", out, out, "ipc"],
  });
  try {
    // The server's own word that it listens (scripts/serve.mjs): polling the URL could reach another server.
    await readyMessage(child, "the app server", 120_000);
    child.disconnect();
  } catch (err) {
    const tail = logTail(logFile);
    await stopChild(child);
    if (/EADDRINUSE/.test(tail)) throw Object.assign(err as Error, { code: "EADDRINUSE" });
    console.error(tail);
    throw err;
  }
  let seq = 0;
  return {
    url,
    origin: url,
    child,
    logFile,
    rssKb: () => rssKb(child.pid),
    async loopDelay() {
      const snap = await readProbe(child, loopFile, seq);
      if (!snap) return null;
      seq = snap.seq;
      const { seq: _, ...delay } = snap;
      return delay;
    },
    stop: () => stopChild(child, 5000),
  };
}

export function logTail(file: string, lines = 30): string {
  try {
    return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no server log)";
  }
}

/**
 * A fresh seeded Postgres database and the production server talking to it through a TCP proxy, so a bench can
 * count the statements it sends or drop its connections.
 */
export async function startProxiedApp(opts: {
  label: string;
  standalone: string;
  world: World;
  serverUrl: string;
  env?: Record<string, string>;
}): Promise<{ db: { kind: "pg"; url: string }; proxy: PgProxy; app: App }> {
  const db = await freshDatabase(opts.label, opts.serverUrl);
  if (db.kind !== "pg") throw new Error("the proxied app needs Postgres");
  await seedBench(db, opts.world.fixtureOrigin);
  const proxy = await startPgProxy(db.url);
  const app = await startApp({
    standalone: opts.standalone,
    db,
    databaseUrl: proxy.url,
    world: opts.world,
    env: opts.env,
  });
  return { db, proxy, app };
}
