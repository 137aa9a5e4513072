// Bundles the embed loader (public/widget.js) and the chat panel (public/w/) with esbuild.
// The panel files (JS and CSS) carry a content hash so they can be cached for a year; the manifest maps
// names to files for the /w/[key] route. `bundleWidget()` builds in memory; the size-budget test uses it.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

const root = path.resolve(import.meta.dirname, "..");
const out = path.join(root, "public");
const loader = path.join(root, "src/widget/loader.ts");
const panel = path.join(root, "src/widget/panel/main.tsx");
const panelCss = path.join(root, "src/widget/panel/panel.css");

async function bundle(entry) {
  const css = entry.endsWith(".css");
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    ...(css ? {} : { format: "iife" }),
    target: ["es2020"],
    write: false,
    legalComments: "none",
    jsx: "automatic",
    jsxImportSource: "preact",
    define: { "process.env.NODE_ENV": '"production"' },
    // The loader (no imports, so it needs no tsconfig paths) relies on nothing strict mode changes, and
    // "use strict" costs bytes of its budget.
    ...(entry === loader ? { tsconfigRaw: { compilerOptions: { alwaysStrict: false } } } : {}),
  });
  return result.outputFiles[0].text;
}

const hashed = (text, ext) => `panel.${createHash("sha256").update(text).digest("hex").slice(0, 12)}.${ext}`;

/** The bundles as strings: { loader, files: { "panel.<hash>.js": text, ... }, manifest }. */
export async function bundleWidget() {
  const result = { loader: existsSync(loader) ? await bundle(loader) : null, files: {}, manifest: {} };
  for (const [name, entry, ext] of [
    ["js", panel, "js"],
    ["css", panelCss, "css"],
  ]) {
    if (!existsSync(entry)) continue;
    const text = await bundle(entry);
    const file = hashed(text, ext);
    result.files[file] = text;
    result.manifest[name] = `/w/${file}`;
  }
  return result;
}

async function main() {
  const { loader: loaderJs, files, manifest } = await bundleWidget();
  mkdirSync(out, { recursive: true }); // a fresh clone has no public/ folder: both outputs are ignored by git
  if (loaderJs) writeFileSync(path.join(out, "widget.js"), loaderJs);
  const panelDir = path.join(out, "w");
  mkdirSync(panelDir, { recursive: true });
  // New files first, then the manifest that points at them, then the old ones: a running server never
  // links a file that is not there.
  for (const [file, text] of Object.entries(files)) writeFileSync(path.join(panelDir, file), text);
  writeFileSync(path.join(panelDir, "manifest.json"), JSON.stringify(manifest));
  for (const file of readdirSync(panelDir)) {
    if (file !== "manifest.json" && !(file in files)) rmSync(path.join(panelDir, file), { force: true });
  }
  console.log(`widget: built ${["widget.js", ...readdirSync(panelDir)].join(", ")}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
