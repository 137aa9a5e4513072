// The picture of src/ by folder (issue 43): every import between two folders is one arrow, and three rules
// hold for the whole graph. dependency-cruiser (.dependency-cruiser.cjs) checks modules one import at a time;
// this checks what only the folders' graph shows:
//   up      no arrow points to a higher layer (docs/architecture.md, "Layers")
//   pair    no two folders import each other (a two-way pair cannot be read or tested one at a time)
//   cycle   no longer round trip between folders either
// Run by scripts/lint.mjs; `node scripts/folder-graph.mjs --mermaid` prints the use-case folders' graph that
// docs/architecture.md shows.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/** Layers from the top; a folder may import its own layer and those after it. */
export const LAYERS = ["app", "use cases", "chat/tools", "auth/security", "db", "base"];

const BASE_FILES =
  /^src\/lib\/(env|env-providers|errors|log|process-slot|request-context|secret-paths)\.[mc]?[jt]s$/;
const WIDGET_CONFIG = /^src\/widget\/(i18n|public-config|contrast)\.ts$/;
const LOWER = { chat: 2, tools: 2, auth: 3, security: 3, mail: 3, db: 4 };

/** The folder a file belongs to, and that folder's layer (an index into LAYERS); null outside the graph. */
export function folderOf(rel) {
  if (!rel.startsWith("src/")) return null;
  if (BASE_FILES.test(rel)) return { folder: rel.slice(4).replace(/\.[mc]?[jt]s$/, ""), layer: 5 };
  if (rel.startsWith("src/shared/")) return { folder: "shared", layer: 5 };
  if (rel.startsWith("src/widget/server/")) return { folder: "widget/server", layer: 1 };
  // The panel's words, colours and public config: built by the widget's server half into the panel page,
  // shown by the browser half. They sit with the server half; src/lib may still not import them
  // (lib-imports-widget-client in .dependency-cruiser.cjs).
  if (WIDGET_CONFIG.test(rel)) return { folder: "widget/config", layer: 1 };
  // The widget's browser side sits beside the admin's pages: above every server use case.
  if (rel.startsWith("src/widget/")) return { folder: "widget", layer: 0 };
  const lib = /^src\/lib\/([^/]+)(\/)?/.exec(rel);
  if (lib) {
    const name = lib[2] ? lib[1] : lib[1].replace(/\.[mc]?[jt]s$/, "");
    return { folder: `lib/${name}`, layer: LOWER[name] ?? 1 };
  }
  const top = /^src\/([^/]+)\//.exec(rel);
  return { folder: top ? top[1] : "app", layer: 0 };
}

const EXTENSIONS = ["", ".ts", ".tsx", ".mts", ".mjs", ".js", "/index.ts", "/index.tsx"];

function resolve(root, fromRel, spec) {
  let base;
  if (spec.startsWith("@/")) base = path.join(root, "src", spec.slice(2));
  else if (spec.startsWith(".")) base = path.resolve(root, path.dirname(fromRel), spec);
  else return null;
  for (const ext of EXTENSIONS) {
    const full = base + ext;
    if (existsSync(full) && statSync(full).isFile())
      return path.relative(root, full).split(path.sep).join("/");
  }
  return null;
}

function* walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(full);
    else if (/\.(tsx?|mts|mjs|js)$/.test(entry.name) && !entry.name.endsWith(".d.ts")) yield full;
  }
}

/** Every arrow between two folders under `root`'s src/, each with one import that makes it. */
export function folderEdges(root) {
  const edges = new Map();
  for (const file of walk(path.join(root, "src"))) {
    const rel = path.relative(root, file).split(path.sep).join("/");
    const from = folderOf(rel);
    if (!from) continue;
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    for (const { fileName } of importedFiles) {
      const target = resolve(root, rel, fileName);
      // scripts/ is not a folder of the product: an import of it is an arrow up out of src/ altogether.
      const to = target?.startsWith("scripts/")
        ? { folder: "scripts", layer: -1 }
        : target
          ? folderOf(target)
          : null;
      if (!to || to.folder === from.folder) continue;
      const key = `${from.folder} → ${to.folder}`;
      if (!edges.has(key)) edges.set(key, { from, to, example: `${rel} → ${target}` });
    }
  }
  return [...edges.values()];
}

/** Strongly connected folder groups of more than one folder (Tarjan). */
function cycles(edges) {
  const next = new Map();
  for (const e of edges) {
    if (!next.has(e.from.folder)) next.set(e.from.folder, []);
    next.get(e.from.folder).push(e.to.folder);
  }
  const index = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const groups = [];
  let i = 0;
  const visit = (v) => {
    index.set(v, i);
    low.set(v, i++);
    stack.push(v);
    on.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const group = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) groups.push(group.sort());
    }
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) visit(v);
  return groups;
}

/** What breaks the three rules, one line each (empty: the graph is clean). */
export function folderGraphFaults(root) {
  const edges = folderEdges(root);
  const faults = [];
  const has = new Set(edges.map((e) => `${e.from.folder} → ${e.to.folder}`));
  for (const e of edges) {
    if (e.to.layer < e.from.layer) {
      const up = e.to.layer < 0 ? "scripts/" : LAYERS[e.to.layer];
      faults.push(`up: ${e.from.folder} (${LAYERS[e.from.layer]}) → ${e.to.folder} (${up}): ${e.example}`);
    }
    if (e.from.folder < e.to.folder && has.has(`${e.to.folder} → ${e.from.folder}`)) {
      const back = edges.find((b) => b.from.folder === e.to.folder && b.to.folder === e.from.folder);
      faults.push(`pair: ${e.from.folder} ⇄ ${e.to.folder}: ${e.example}; ${back.example}`);
    }
  }
  for (const group of cycles(edges)) {
    // A group of two is already named as a pair.
    if (group.length > 2) faults.push(`cycle: ${group.join(", ")}`);
  }
  return faults;
}

/** The use-case folders and the arrows between them, as a Mermaid graph. */
export function mermaidOfUseCases(root) {
  const edges = folderEdges(root).filter((e) => e.from.layer === 1 && e.to.layer === 1);
  const id = (f) => f.replace(/[^\w]/g, "_");
  const lines = ["graph LR"];
  for (const e of edges.sort((a, b) =>
    `${a.from.folder}${a.to.folder}`.localeCompare(`${b.from.folder}${b.to.folder}`),
  ))
    lines.push(`  ${id(e.from.folder)}["${e.from.folder}"] --> ${id(e.to.folder)}["${e.to.folder}"]`);
  return lines.join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = path.resolve(import.meta.dirname, "..");
  if (process.argv.includes("--mermaid")) console.log(mermaidOfUseCases(root));
  else {
    const faults = folderGraphFaults(root);
    for (const f of faults) console.error(`folder-graph: ${f}`);
    process.exit(faults.length > 0 ? 1 : 0);
  }
}
