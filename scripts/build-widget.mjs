// Bundles the embed loader (public/widget.js) and the chat panel (public/w/) with esbuild.
// The panel files (JS and CSS) carry a content hash so they can be cached for a year; the manifest maps
// names to files for the /w/[key] route.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
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
  });
  return result.outputFiles[0].text;
}

if (existsSync(loader)) writeFileSync(path.join(out, "widget.js"), await bundle(loader));

const panelDir = path.join(out, "w");
rmSync(panelDir, { recursive: true, force: true });
mkdirSync(panelDir, { recursive: true });
const manifest = {};
for (const [name, entry, ext] of [
  ["js", panel, "js"],
  ["css", panelCss, "css"],
]) {
  if (!existsSync(entry)) continue;
  const text = await bundle(entry);
  const hash = createHash("sha256").update(text).digest("hex").slice(0, 12);
  writeFileSync(path.join(panelDir, `panel.${hash}.${ext}`), text);
  manifest[name] = `/w/panel.${hash}.${ext}`;
}
writeFileSync(path.join(panelDir, "manifest.json"), JSON.stringify(manifest));
console.log(`widget: built ${["widget.js", ...readdirSync(panelDir)].join(", ")}`);
