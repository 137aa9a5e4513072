import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { z } from "zod";
import { ROOT } from "./lib/procs";

// Widget weight: what a visitor's browser downloads. The loader is on every page of the tenant's site; the
// panel (JS + CSS) only when the visitor opens the chat. Sizes are gzip -9 and brotli q11, what a static host
// or CDN serves for pre-compressed files; on-the-fly compression at lower levels is a little larger.

/** Published figures for the whole widget, gzipped; sources in bench/README.md. */
export const PEERS = [
  { name: "Crisp", bytes: 130 * 1000, label: "~130 KB" },
  { name: "Intercom", bytes: 210 * 1000, label: "~210 KB" },
  { name: "Typebot", bytes: 192 * 1024, label: "192 KiB" },
  { name: "Flowise", bytes: 277 * 1024, label: "277 KiB" },
] as const;

export type Weight = { file: string; raw: number; gzip: number; brotli: number };

export type WidgetResult = {
  source: string;
  loader: Weight;
  panel: Weight[];
  loaderGzipBytes: number;
  loaderBrotliBytes: number;
  panelGzipBytes: number;
  panelBrotliBytes: number;
  totalGzipBytes: number;
  totalBrotliBytes: number;
};

function weigh(dir: string, rel: string): Weight {
  const buf = readFileSync(path.join(dir, rel));
  return {
    file: rel,
    raw: buf.length,
    gzip: gzipSync(buf, { level: 9 }).length,
    brotli: brotliCompressSync(buf, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: buf.length },
    }).length,
  };
}

const manifestSchema = z.record(z.string(), z.string().regex(/^\/w\/[\w.-]+$/));

/** Measures the bundles the production build ships (its public/), else the repo's public/. */
export function benchWidget(standalone: string | null): WidgetResult {
  const candidates = [standalone && path.join(standalone, "public"), path.join(ROOT, "public")].filter(
    (d): d is string => !!d && existsSync(path.join(d, "widget.js")),
  );
  const dir = candidates[0];
  if (!dir)
    throw new Error("no widget bundles: run `node scripts/build-widget.mjs` or `npm run build` first");
  const manifest = manifestSchema.parse(JSON.parse(readFileSync(path.join(dir, "w/manifest.json"), "utf8")));
  const loader = weigh(dir, "widget.js");
  const panel = Object.values(manifest).map((p) => weigh(dir, p.slice(1)));
  const sum = (ws: Weight[], k: "gzip" | "brotli") => ws.reduce((a, w) => a + w[k], 0);
  return {
    source: dir.startsWith(ROOT)
      ? path.relative(ROOT, dir)
      : "the production build (.next/standalone/public)",
    loader,
    panel,
    loaderGzipBytes: loader.gzip,
    loaderBrotliBytes: loader.brotli,
    panelGzipBytes: sum(panel, "gzip"),
    panelBrotliBytes: sum(panel, "brotli"),
    totalGzipBytes: loader.gzip + sum(panel, "gzip"),
    totalBrotliBytes: loader.brotli + sum(panel, "brotli"),
  };
}
