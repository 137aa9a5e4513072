// The e2e world in one process, started by Playwright's webServer: a fresh database, the seeded fixtures,
// the fake model, the https fixture site, and the production standalone server (the artifact Docker ships).
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createDb } from "@/lib/db/client";
import { migrate } from "@/lib/db/migrate";
import { createEmptyDatabase } from "./db";
import { E2E } from "./e2e-env";
import { E2E_FIXTURE_ROUTES } from "./e2e-fixture-routes";
import { seedE2E } from "./e2e-seed";
import { startFakeModel } from "./fake-model";
import { startFixtureSite } from "./fixture-site";

const root = path.resolve(import.meta.dirname, "../..");
const server = path.join(root, ".next/standalone/michi-server.mjs");
if (!existsSync(server)) {
  console.error("e2e: no production build; run `npm run build` first");
  process.exit(1);
}

const cleanups: (() => Promise<unknown> | unknown)[] = [];
let app: ChildProcess | undefined;
let stopping = false;

async function stop(code: number) {
  if (stopping) return;
  stopping = true;
  if (app && app.exitCode === null) {
    app.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 1500));
    if (app.exitCode === null) app.kill("SIGKILL");
  }
  for (const fn of cleanups.reverse()) await Promise.resolve(fn()).catch(() => {});
  process.exit(code);
}
process.on("SIGINT", () => void stop(0));
process.on("SIGTERM", () => void stop(0));

const work = mkdtempSync(path.join(tmpdir(), "michi-e2e-"));
cleanups.push(() => rmSync(work, { recursive: true, force: true }));

let databaseUrl: string | undefined;
let dataDir: string | undefined;
if (process.env.DATABASE_URL) {
  const db = await createEmptyDatabase("michi_e2e");
  databaseUrl = db.url;
  cleanups.push(() => db.drop());
} else {
  dataDir = path.join(work, "data");
}

// Seed before the server starts; with PGlite the server then owns the data directory alone.
const handle = databaseUrl
  ? await createDb({ url: databaseUrl, poolMax: 2 })
  : await createDb({ dataDir: path.join(dataDir!, "pglite") });
await migrate(handle);
await seedE2E(handle);
await handle.close();

const model = await startFakeModel({ port: E2E.modelPort, host: "127.0.0.1" });
cleanups.push(() => model.close());

const fixture = await startFixtureSite({ port: E2E.fixturePort, routes: E2E_FIXTURE_ROUTES });
cleanups.push(() => fixture.close());
const caFile = path.join(work, "fixture-ca.pem");
writeFileSync(caFile, fixture.caPem);

const env: NodeJS.ProcessEnv = {
  ...process.env,
  NODE_ENV: "production",
  PORT: String(E2E.appPort),
  HOSTNAME: "127.0.0.1",
  MICHI_PUBLIC_URL: E2E.appUrl,
  MICHI_SECRET_KEY: randomBytes(32).toString("base64"),
  MICHI_AUTH_SECRET: randomBytes(32).toString("base64"),
  MICHI_ADMIN_EMAIL: E2E.operator.email,
  MICHI_ADMIN_PASSWORD: E2E.operator.password,
  MICHI_ALLOW_SIGNUP: "true",
  OPENAI_BASE_URL: model.url,
  OPENAI_API_KEY: "e2e",
  MICHI_MODELS: E2E.models.join(","),
  MICHI_FETCH_ALLOW_HOSTS: fixture.host,
  MICHI_FETCH_EXTRA_CA: caFile,
  MICHI_LOG_LEVEL: process.env.MICHI_LOG_LEVEL ?? "warn",
  NEXT_TELEMETRY_DISABLED: "1",
};
if (databaseUrl) env.DATABASE_URL = databaseUrl;
else {
  delete env.DATABASE_URL;
  env.MICHI_DATA_DIR = dataDir;
}

app = spawn(process.execPath, [server], { env, stdio: "inherit", cwd: path.dirname(server) });
app.on("exit", (code) => {
  if (!stopping) {
    console.error(`e2e: the app server exited early (code ${code})`);
    void stop(1);
  }
});
console.log(`e2e: app on ${E2E.appUrl}, fake model on ${model.url}, fixture on ${fixture.origin}`);
