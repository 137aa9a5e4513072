// Starts the production standalone server. Paths are made absolute first, because the standalone server
// changes its working directory to its own folder.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { loadEnvFiles } from "./env-files.mjs";
import { SERVER_NODE_FLAGS } from "./server-flags.mjs";

const root = path.resolve(import.meta.dirname, "..");
const server = path.join(root, ".next/standalone/michi-server.mjs");
if (!existsSync(server)) {
  console.error("No production build found. Run `npm run build` first.");
  process.exit(1);
}
const read = loadEnvFiles(root);
if (read.length > 0) console.log(`start: read ${read.join(", ")}`);
const env = { ...process.env, NODE_ENV: "production" };
env.MICHI_DATA_DIR = path.resolve(root, env.MICHI_DATA_DIR || ".data");
if (env.MICHI_FETCH_EXTRA_CA) env.MICHI_FETCH_EXTRA_CA = path.resolve(root, env.MICHI_FETCH_EXTRA_CA);
const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, server], { env, stdio: "inherit" });
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
