// No `channel === "whatsapp"` outside a channel's own folder (issue 43): what differs between channels is a
// table look-up, the server's adapters (src/lib/channels/adapter.ts) for what a channel does and
// src/shared/channels.ts for what the admin calls it, so a third channel is a folder and a row, not an edit
// of every file that once asked which channel it was. The adapters' folders (src/lib/channels/<channel>/)
// may name their own channel. Run by scripts/lint.mjs.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/** The channel names a branch could test: the rows of src/shared/channels.ts (a unit test holds them equal). */
export const CHANNEL_NAMES = ["web", "whatsapp", "telegram"];

const ADAPTER_FOLDER = /^src\/lib\/channels\/[^/]+\//;
const names = CHANNEL_NAMES.join("|");
const quoted = `["'\`](?:${names})["'\`]`;
// A comparison with a channel's name on either side, or a switch case on one.
const BRANCH = new RegExp(`(?:[!=]==?\\s*${quoted})|(?:${quoted}\\s*[!=]==?)|(?:\\bcase\\s+${quoted}\\s*:)`);
const COMMENT = /^\s*(\/\/|\/?\*)/;

function* walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(full);
    else if (/\.(tsx?|mjs|js)$/.test(entry.name)) yield full;
  }
}

/** Lines under `root`'s src/ (a checkout, or a lint fixture) that branch on a channel's name: "file:line: code". */
export function channelBranches(root) {
  const found = [];
  for (const file of walk(path.join(root, "src"))) {
    const rel = path.relative(root, file).split(path.sep).join("/");
    if (ADAPTER_FOLDER.test(rel)) continue;
    readFileSync(file, "utf8")
      .split("\n")
      .forEach((line, i) => {
        if (!COMMENT.test(line) && BRANCH.test(line)) found.push(`${rel}:${i + 1}: ${line.trim()}`);
      });
  }
  return found;
}
