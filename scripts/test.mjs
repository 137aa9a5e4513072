// `npm test`: lint (biome, layers, server-only, knip), typecheck, unit, integration and e2e, in that order. Every step runs even after a failure,
// so one run shows everything that is wrong; the exit code is non-zero if any step failed.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const out = path.join(root, "test-results");
rmSync(path.join(out, "vitest.json"), { force: true });
rmSync(path.join(out, "e2e.json"), { force: true });
mkdirSync(out, { recursive: true });
const bin = (p) => path.join(root, "node_modules", p);

const steps = [
  ["lint", ["scripts/lint.mjs"]],
  ["typecheck", [bin("typescript/bin/tsc"), "--noEmit"]],
  [
    "unit + integration",
    [
      bin("vitest/vitest.mjs"),
      "run",
      "--reporter=default",
      "--reporter=json",
      `--outputFile.json=${path.join(out, "vitest.json")}`,
    ],
  ],
  ["e2e", ["scripts/e2e.mjs"]],
];

const results = [];
for (const [name, args] of steps) {
  console.log(`\n=== ${name} ===`);
  const started = Date.now();
  const status = spawnSync(process.execPath, args, { cwd: root, stdio: "inherit" }).status ?? 1;
  results.push({ name, ok: status === 0, secs: Math.round((Date.now() - started) / 1000) });
}

let passed = 0;
let failed = 0;
let skipped = 0;
const read = (f) => (existsSync(f) ? JSON.parse(readFileSync(f, "utf8")) : null);
const vitest = read(path.join(out, "vitest.json"));
if (vitest) {
  passed += vitest.numPassedTests;
  failed += vitest.numFailedTests;
  skipped += vitest.numPendingTests + vitest.numTodoTests;
}
const e2e = read(path.join(out, "e2e.json"));
if (e2e?.stats) {
  passed += e2e.stats.expected + e2e.stats.flaky;
  failed += e2e.stats.unexpected;
  skipped += e2e.stats.skipped;
}

console.log("\n=== summary ===");
for (const r of results) console.log(`${r.ok ? "ok  " : "FAIL"} ${r.name} (${r.secs}s)`);
// Where the e2e minutes go, slowest spec first: the suite runs on one worker, so a slow spec costs the whole run.
const specSecs = new Map();
const walk = (suite) => {
  for (const spec of suite.specs ?? [])
    for (const t of spec.tests)
      for (const r of t.results) specSecs.set(spec.file, (specSecs.get(spec.file) ?? 0) + r.duration / 1000);
  for (const child of suite.suites ?? []) walk(child);
};
for (const suite of e2e?.suites ?? []) walk(suite);
const slowest = [...specSecs].sort((a, b) => b[1] - a[1]).slice(0, 8);
if (slowest.length)
  console.log(`e2e, slowest specs: ${slowest.map(([f, s]) => `${f} ${Math.round(s)}s`).join(", ")}`);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(results.every((r) => r.ok) && failed === 0 ? 0 : 1);
