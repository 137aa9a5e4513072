import { spawn } from "node:child_process";
import path from "node:path";
import { type E2EWorld, WORLD_ENV } from "./e2e-env";

// Playwright's global setup: starts the e2e world (tests/support/e2e-server.ts) in its own process and waits for
// it to report the addresses its servers got. They go into MICHI_E2E_WORLD, which the workers inherit (the
// documented way to hand data from global setup to tests: https://playwright.dev/docs/test-global-setup-teardown),
// and from which playwright.config.ts takes the baseURL when a worker loads it. The returned function is the
// teardown; the world also stops by itself when the IPC channel to this process closes.

const root = path.resolve(import.meta.dirname, "../..");
const START_TIMEOUT_MS = 180_000;

export default async function globalSetup(): Promise<() => Promise<void>> {
  // react-server: the world imports server modules, which start with import "server-only".
  const child = spawn(
    process.execPath,
    ["--conditions=react-server", "--import", "tsx", "tests/support/e2e-server.ts"],
    {
      cwd: root,
      env: process.env,
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    },
  );
  const world = await new Promise<E2EWorld>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGTERM");
      reject(new Error(`the e2e world did not start within ${START_TIMEOUT_MS} ms`));
    }, START_TIMEOUT_MS);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the e2e world exited before it was ready (code ${code})`));
    });
    child.on("message", (m: { type?: string; world?: E2EWorld }) => {
      if (m?.type !== "world" || !m.world) return;
      clearTimeout(timer);
      resolve(m.world);
    });
  });
  process.env[WORLD_ENV] = JSON.stringify(world);
  return async () => {
    if (child.exitCode !== null) return;
    const gone = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await gone;
  };
}
