import { type ChildProcess, spawn } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { E2E } from "../support/e2e-env";
import { onLowPort } from "../support/ports";
import { instanceEnv, STANDALONE_SERVER } from "../support/standalone";

// `npm run build && npm start` as a newcomer runs it: the build output holds what the server runs and no env
// file, and `npm start` reads the project root's .env files at each start, so a variable removed from the
// root's .env.local is gone after a restart. Before, Next copied .env files into .next/standalone (and the
// models page's process.cwd() path traced the whole repository there, .env.local, src/, tests/ and all), and its
// server read that stale copy.

test.describe.configure({ timeout: 180_000 });

const repo = path.resolve(import.meta.dirname, "../..");
const standalone = path.dirname(STANDALONE_SERVER);

test("the build output carries no env file and none of the sources, tests, benchmarks or docs", () => {
  const names = readdirSync(standalone);
  expect(names.filter((n) => n.startsWith(".env"))).toEqual([]);
  expect(names.filter((n) => ["src", "tests", "bench", "docs", "scripts"].includes(n))).toEqual([]);
  expect(names).toContain("michi-server.mjs");
});

/** Runs `npm start`'s script from a project root of the test's own, whose build output is the real one. */
function npmStart(
  root: string,
  dataDir: string,
): Promise<{ child: ChildProcess; base: string; logs(): string }> {
  return onLowPort(
    (port) =>
      new Promise((resolve, reject) => {
        const env = instanceEnv({
          publicUrl: `http://127.0.0.1:${port}`,
          modelUrl: E2E.modelUrl,
          database: { embedded: dataDir },
        });
        // Only the root's .env.local may switch the demo on.
        delete env.MICHI_DEMO;
        const child = spawn(process.execPath, [path.join(root, "scripts/start.mjs")], {
          env: { ...env, PORT: String(port), HOSTNAME: "127.0.0.1" },
          cwd: root,
          stdio: ["ignore", "pipe", "pipe"],
        });
        let logs = "";
        const onData = (d: Buffer) => {
          logs += String(d);
          // serve.mjs's own line, with our port: no other process prints it.
          if (logs.includes(`listening on http://127.0.0.1:${port}`))
            resolve({ child, base: `http://127.0.0.1:${port}`, logs: () => logs });
        };
        child.stdout.on("data", onData);
        child.stderr.on("data", onData);
        child.once("exit", (code) => {
          const err = new Error(`npm start exited before listening (code ${code})\n${logs.slice(-4000)}`);
          if (/EADDRINUSE/.test(logs)) Object.assign(err, { code: "EADDRINUSE" });
          reject(err);
        });
      }),
  );
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

test("npm start reads the root's .env.local at each start, never a copy in the build output", async () => {
  const root = mkdtempSync(path.join(tmpdir(), "michi-start-root-"));
  const dataDir = path.join(root, ".data");
  // A build made with an .env.local in the root left this copy behind; the server must not read it.
  const stale = path.join(standalone, ".env.local");
  let child: ChildProcess | undefined;
  try {
    mkdirSync(path.join(root, "scripts"));
    for (const f of ["start.mjs", "env-files.mjs", "server-flags.mjs"])
      copyFileSync(path.join(repo, "scripts", f), path.join(root, "scripts", f));
    mkdirSync(path.join(root, ".next"));
    symlinkSync(standalone, path.join(root, ".next/standalone"));
    writeFileSync(stale, "MICHI_DEMO=true\n");

    writeFileSync(path.join(root, ".env.local"), "MICHI_DEMO=true\n");
    let started = await npmStart(root, dataDir);
    child = started.child;
    expect(started.logs()).toContain("start: read .env.local");
    expect((await fetch(`${started.base}/demo`)).status).toBe(200);
    await stop(child);

    // The owner takes the demo out of .env.local and restarts: it is off, whatever the stale copy says.
    writeFileSync(path.join(root, ".env.local"), "# the demo is off now\n");
    started = await npmStart(root, dataDir);
    child = started.child;
    expect((await fetch(`${started.base}/demo`)).status).toBe(404);
  } finally {
    if (child) await stop(child);
    rmSync(stale, { force: true });
    rmSync(root, { recursive: true, force: true });
  }
});
