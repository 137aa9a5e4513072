// `npm run test:e2e`: checks for Chromium, builds the standalone server if its inputs changed, runs Playwright.
// On CI a missing browser fails the run; on a laptop it skips with a loud message.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const chromium = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
if (!existsSync(chromium)) {
  const msg = `Chromium not found at ${chromium} (set CHROMIUM_PATH or run: apt-get install chromium)`;
  if (process.env.CI) {
    console.error(`e2e: FAILED: ${msg}`);
    process.exit(1);
  }
  console.warn(`\n${"!".repeat(72)}\n  e2e SKIPPED: ${msg}\n${"!".repeat(72)}\n`);
  process.exit(0);
}
const run = (args) => spawnSync(process.execPath, args, { cwd: root, stdio: "inherit" }).status ?? 1;
if (run(["scripts/build.mjs", "--if-stale"]) !== 0) process.exit(1);
process.exit(
  // react-server: specs and their support code import server modules (which start with import "server-only");
  // Playwright's workers are forked and inherit the flag. The app itself is spawned without it.
  run([
    "--conditions=react-server",
    path.join(root, "node_modules/@playwright/test/cli.js"),
    "test",
    ...process.argv.slice(2),
  ]),
);
