// `npm run lint` (and the lint step of `npm test`): style, then the boundaries docs/architecture.md describes.
//   biome             format and lint rules
//   dependency-cruiser the layer order, SQL only in src/lib/db, no component reading the database
//                     (.dependency-cruiser.cjs)
//   server-only       every server module under src/lib and src/widget/server starts with import "server-only"
//   channel-branch    no `channel === "…"` outside a channel adapter's folder (scripts/channel-branch-check.mjs)
//   folder-graph      src/ by folder: no arrow up, no two folders importing each other, no cycle
//                     (scripts/folder-graph.mjs)
//   knip              unused files, exports and dependencies (knip.jsonc)
// Every check runs even after a failure, so one run shows all that is wrong.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { channelBranches } from "./channel-branch-check.mjs";
import { folderGraphFaults } from "./folder-graph.mjs";
import { missingServerOnly } from "./server-only-check.mjs";

const root = path.resolve(import.meta.dirname, "..");
const bin = (p) => path.join(root, "node_modules", p);
const run = (args) => spawnSync(process.execPath, args, { cwd: root, stdio: "inherit" }).status ?? 1;

const failures = [];
const check = (name, ok) => {
  if (!ok) failures.push(name);
};

check("biome", run([bin("@biomejs/biome/bin/biome"), "check", "."]) === 0);
check(
  "dependency-cruiser",
  run([bin("dependency-cruiser/bin/dependency-cruise.mjs"), "--output-type", "err", "src", "scripts"]) === 0,
);
const missing = missingServerOnly(root);
for (const file of missing) console.error(`server-only: ${file} does not import "server-only"`);
check("server-only", missing.length === 0);
const branches = channelBranches(root);
for (const line of branches)
  console.error(
    `channel-branch: ${line}\n  ask the table instead: adapterFor(channel) (src/lib/channels/adapter.ts) or CHANNEL_WORDS (src/shared/channels.ts)`,
  );
check("channel-branch", branches.length === 0);
const folderFaults = folderGraphFaults(root);
for (const f of folderFaults) console.error(`folder-graph: ${f}`);
check("folder-graph", folderFaults.length === 0);
check("knip", run([bin("knip/bin/knip.js"), "--no-progress"]) === 0);

if (failures.length > 0) {
  console.error(`lint: FAILED (${failures.join(", ")})`);
  process.exit(1);
}
console.log("lint: biome, layers, server-only, channel branches, folder graph and knip all clean");
