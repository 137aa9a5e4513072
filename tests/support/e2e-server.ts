// The e2e world in one process, started by Playwright's global setup (tests/support/e2e-global-setup.ts): a
// fresh database, the seeded fixtures, the fake model, the https fixture site, two host pages, and the
// production standalone server (the artifact Docker ships). Every server picks its port when it starts; the
// world tells its parent the addresses over IPC once all of them listen, and stops when that channel closes.

import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createDb } from "@/lib/db/client";
import { migrate } from "@/lib/db/migrate";
import { createEmptyDatabase } from "./db";
import { startChannelsWorld } from "./e2e-channels";
import { E2E, type E2EWorld, WORLD_ENV as WORLD_KEY } from "./e2e-env";
import { E2E_FIXTURE_ROUTES } from "./e2e-fixture-routes";
import { seedCafeWebhook, startHandoffWorld } from "./e2e-handoff";
import { seedE2E } from "./e2e-seed";
import { startFakeModel } from "./fake-model";
import { startFixtureSite } from "./fixture-site";
import { startHostPage } from "./host-page";
import { STANDALONE_SERVER, startStandalone } from "./standalone";

if (!existsSync(STANDALONE_SERVER)) {
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
    // Its graceful shutdown closes the database pool, so the test database can be dropped after it.
    const gone = new Promise((r) => app?.once("exit", r));
    app.kill("SIGTERM");
    const timer = setTimeout(() => app?.kill("SIGKILL"), 10_000);
    await gone;
    clearTimeout(timer);
  }
  for (const fn of cleanups.reverse()) await Promise.resolve(fn()).catch(() => {});
  process.exit(code);
}
process.on("SIGINT", () => void stop(0));
process.on("SIGTERM", () => void stop(0));
// The runner went away (end of the run, a crash, Ctrl-C): nothing of the world may outlive it.
process.on("disconnect", () => void stop(0));

async function main() {
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

  let appUrl = "";
  const host = await startHostPage({ appUrl: () => appUrl });
  cleanups.push(() => host.close());
  const stranger = await startHostPage({ appUrl: () => appUrl });
  cleanups.push(() => stranger.close());

  const model = await startFakeModel({ host: "127.0.0.1" });
  cleanups.push(() => model.close());

  const fixture = await startFixtureSite({ routes: E2E_FIXTURE_ROUTES });
  cleanups.push(() => fixture.close());
  const handoff = await startHandoffWorld();
  cleanups.push(() => handoff.close());
  const channels = await startChannelsWorld();
  cleanups.push(() => channels.close());
  // One file with every test CA: the fixture site's (packs), the webhook receiver's and the fake channel APIs'.
  const caFile = path.join(work, "fixture-ca.pem");
  writeFileSync(
    caFile,
    [fixture.caPem, handoff.hooks.caPem, channels.graph.caPem, channels.telegram.caPem].join("\n"),
  );
  const allowHosts = [fixture.host, handoff.hooks.host, channels.graph.host, channels.telegram.host].join(
    ",",
  );
  // The webhook endpoint is sealed and its URL checked in this process, with the keys the app gets too.
  const secretKey = randomBytes(32).toString("base64");
  Object.assign(process.env, {
    MICHI_DATA_DIR: path.join(work, "world"),
    MICHI_AUTH_SECRET: randomBytes(32).toString("base64"),
    MICHI_SECRET_KEY: secretKey,
    MICHI_FETCH_ALLOW_HOSTS: allowHosts,
    MICHI_FETCH_EXTRA_CA: caFile,
  });

  // Seed before the server starts (the tenants allow the host page's origin, so it must be known); with PGlite
  // the server then owns the data directory alone.
  const handle = databaseUrl
    ? await createDb({ url: databaseUrl, poolMax: 2 })
    : await createDb({ dataDir: path.join(dataDir!, "pglite") });
  await migrate(handle);
  await seedE2E(handle, { hostPageOrigin: host.origin, fixtureOrigin: fixture.origin });
  const hookSecret = await seedCafeWebhook(handle, handoff.hooks.url("/crm"));
  await handle.close();

  const started = await startStandalone({
    echo: true,
    env: (port) => {
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        NODE_ENV: "production",
        MICHI_PUBLIC_URL: `http://localhost:${port}`,
        MICHI_SECRET_KEY: secretKey,
        MICHI_AUTH_SECRET: randomBytes(32).toString("base64"),
        MICHI_ADMIN_EMAIL: E2E.operator.email,
        MICHI_ADMIN_PASSWORD: E2E.operator.password,
        MICHI_ALLOW_SIGNUP: "true",
        MICHI_DEMO: "true", // specs use the demo tenant and /demo
        // No mail server, as for a newcomer in development: mails wait in the operator's Outbox, where the
        // invitation and password reset specs read their links (tests/e2e/mail-flows.spec.ts).
        MICHI_MAIL_OUTBOX: "true",
        OPENAI_BASE_URL: model.url,
        OPENAI_API_KEY: "e2e",
        MICHI_MODELS: E2E.models.join(","),
        MICHI_FETCH_ALLOW_HOSTS: allowHosts,
        MICHI_SMTP_URL: handoff.smtp.url,
        MICHI_FETCH_EXTRA_CA: caFile,
        // WhatsApp and Telegram calls go to the world's fakes (tests/support/e2e-channels.ts).
        MICHI_CHANNELS_GRAPH_URL: channels.graph.baseUrl,
        MICHI_CHANNELS_TELEGRAM_URL: channels.telegram.baseUrl,
        MICHI_LOG_LEVEL: process.env.MICHI_LOG_LEVEL ?? "warn",
        // Every visitor of this world comes from one loopback address, where real visitors come from many:
        // the per-address limit would otherwise count the whole suite (the dialect spec alone sends 42 chats,
        // twice that under --repeat-each=2) as one visitor. Per-address limits are proven in integration tests.
        MICHI_RATE_IP_PER_MIN: "100000",
        // A hung model fails within this rather than the 30 s default, so the dead-end spec is quick.
        MICHI_MODEL_FIRST_BYTE_TIMEOUT_MS: "10000",
        // The visitor's thumbs-down and comment arrive seconds apart in the specs; they still make one event.
        MICHI_WEBHOOK_FEEDBACK_SETTLE_SECONDS: "3",
        NEXT_TELEMETRY_DISABLED: "1",
      };
      delete env[WORLD_KEY];
      if (databaseUrl) env.DATABASE_URL = databaseUrl;
      else {
        delete env.DATABASE_URL;
        env.MICHI_DATA_DIR = dataDir;
      }
      return env;
    },
  });
  app = started.child;
  appUrl = `http://localhost:${started.port}`;
  app.on("exit", (code) => {
    if (!stopping) {
      console.error(`e2e: the app server exited early (code ${code})`);
      void stop(1);
    }
  });

  const world: E2EWorld = {
    appUrl,
    modelUrl: model.url.replace(/\/v1$/, ""),
    fixtureOrigin: fixture.origin,
    hostPageOrigin: host.origin,
    strangerOrigin: stranger.origin,
    inboxUrl: handoff.inboxUrl,
    hookSecret,
    channels: {
      viewUrl: channels.viewUrl,
      phoneNumberId: channels.graph.phoneNumberId,
      accessToken: channels.graph.accessToken,
      telegramToken: channels.telegram.token,
    },
  };
  console.log(`e2e: app on ${appUrl}, fake model on ${model.url}, fixture on ${fixture.origin}`);
  if (process.send) process.send({ type: "world", world });
  else console.log(JSON.stringify(world));
}

main().catch((err) => {
  console.error("e2e: the world could not start:", err);
  void stop(1);
});
