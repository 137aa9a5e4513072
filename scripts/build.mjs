// The one production build: the widget bundles, `next build` (standalone), then the files the standalone
// server needs beside it. The Dockerfile and the e2e tests both run this, so CI tests what ships.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { bundleExtractWorker } from "./build-extract-worker.mjs";

const root = path.resolve(import.meta.dirname, "..");
const standalone = path.join(root, ".next/standalone");
const stamp = path.join(standalone, ".build-hash");
const inputs = [
  "src",
  "public",
  "drizzle",
  "scripts",
  "package-lock.json",
  "next.config.ts",
  "postcss.config.mjs",
  "tsconfig.json",
];

function hashInputs() {
  const h = createHash("sha256");
  const walk = (p) => {
    const full = path.join(root, p);
    if (!existsSync(full)) return;
    if (statSync(full).isDirectory()) {
      for (const name of readdirSync(full).sort()) {
        if (p === "public" && (name === "w" || name === "widget.js")) continue; // build outputs
        walk(path.join(p, name));
      }
    } else {
      h.update(p);
      h.update(readFileSync(full));
    }
  };
  for (const i of inputs) walk(i);
  return h.digest("hex");
}

const hash = hashInputs();
if (process.argv.includes("--if-stale") && existsSync(stamp) && readFileSync(stamp, "utf8") === hash) {
  console.log("build: standalone output is up to date");
  process.exit(0);
}

const run = (cmd, args) =>
  execFileSync(cmd, args, {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
  });
run(process.execPath, ["scripts/build-widget.mjs"]);
run(process.execPath, [path.join(root, "node_modules/next/dist/bin/next"), "build"]);
// Next copies `.env` and `.env.production` into the standalone folder, and its server would read them there
// (serve.mjs stops that too): a stale copy of the build machine's secrets. `npm start` reads the root's files.
for (const name of readdirSync(standalone)) {
  if (name.startsWith(".env")) rmSync(path.join(standalone, name), { force: true });
}
cpSync(path.join(root, ".next/static"), path.join(standalone, ".next/static"), { recursive: true });
cpSync(path.join(root, "public"), path.join(standalone, "public"), { recursive: true });
cpSync(path.join(root, "drizzle"), path.join(standalone, "drizzle"), { recursive: true });
cpSync(path.join(root, "scripts/serve.mjs"), path.join(standalone, "michi-server.mjs"));
// The secret-route redaction lives under src/lib (the logger imports it); the server imports it beside itself.
for (const file of ["scripts/direct-routes.mjs", "src/lib/secret-paths.mjs"]) {
  cpSync(path.join(root, file), path.join(standalone, path.basename(file)));
}
// The embedded database's worker thread is loaded by path at run time (src/lib/db/embedded.ts), so Next traces
// neither it nor the PGlite package it imports.
// The knowledge extraction worker thread loads its own bundle by path (src/lib/knowledge/extract-pool.ts).
await bundleExtractWorker(path.join(standalone, "extract-worker.mjs"));
for (const file of ["pglite-worker.mjs", "pglite-statements.mjs"]) {
  cpSync(path.join(root, "src/lib/db", file), path.join(standalone, file));
}
cpSync(
  path.join(root, "node_modules/@electric-sql/pglite"),
  path.join(standalone, "node_modules/@electric-sql/pglite"),
  { recursive: true, filter: (f) => !f.endsWith(".map") && !/\.d\.c?ts$/.test(f) },
);
writeFileSync(stamp, hash);
console.log(
  "build: standalone server ready in .next/standalone (start it with `npm start`, i.e. node .next/standalone/michi-server.mjs)",
);
