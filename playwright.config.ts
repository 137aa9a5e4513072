import { defineConfig, devices } from "@playwright/test";
import { E2E } from "./tests/support/e2e-env";

// Debian's Chromium; Playwright never downloads a browser here. scripts/e2e.mjs checks it exists first.
const executablePath = process.env.CHROMIUM_PATH || "/usr/bin/chromium";

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
    baseURL: E2E.appUrl,
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
  webServer: {
    // react-server: the e2e world imports server modules, which start with import "server-only".
    command: "npx tsx --conditions=react-server tests/support/e2e-server.ts",
    url: `${E2E.appUrl}/api/health`,
    reuseExistingServer: false,
    timeout: 180_000,
    stdout: "pipe",
    stderr: "pipe",
    gracefulShutdown: { signal: "SIGTERM", timeout: 10_000 },
  },
});
