import { defineConfig, devices } from "@playwright/test";
import { WORLD_ENV } from "./tests/support/e2e-env";

// Debian's Chromium; Playwright never downloads a browser here. scripts/e2e.mjs checks it exists first.
const executablePath = process.env.CHROMIUM_PATH || "/usr/bin/chromium";

// The world's servers choose their ports when they start (tests/support/e2e-global-setup.ts). Workers load this
// file after the global setup ran and inherit its environment, so they see the app's real address here.
const world = process.env[WORLD_ENV] ? (JSON.parse(process.env[WORLD_ENV]) as { appUrl: string }) : null;

export default defineConfig({
  testDir: "tests/e2e",
  // Its own folder: Playwright empties outputDir on start, and test-results/ also holds the Vitest report.
  outputDir: "test-results/e2e-artifacts",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  forbidOnly: !!process.env.CI,
  timeout: 45_000,
  expect: { timeout: 10_000 },
  reporter: [["list"], ["json", { outputFile: "test-results/e2e.json" }]],
  use: {
    baseURL: world?.appUrl,
    trace: "retain-on-failure",
    ...devices["Desktop Chrome"],
    launchOptions: {
      executablePath,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
  globalSetup: "./tests/support/e2e-global-setup.ts",
});
