// Bundles the knowledge extraction worker (src/lib/knowledge/extract-worker.ts) with its parsers into one
// file beside the standalone server: the worker thread loads it by path (src/lib/knowledge/extract-pool.ts),
// outside Next's bundles. `server-only` resolves to its empty react-server build, as in Next's server.
import path from "node:path";
import { build } from "esbuild";

export async function bundleExtractWorker(outfile) {
  const root = path.resolve(import.meta.dirname, "..");
  await build({
    entryPoints: [path.join(root, "src/lib/knowledge/extract-worker.ts")],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    conditions: ["react-server"],
    alias: { "@": path.join(root, "src") },
    // Some CommonJS dependencies call require(); give the ESM bundle one.
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
    logLevel: "warning",
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await bundleExtractWorker(
    process.argv[2] ?? path.resolve(import.meta.dirname, "../.next/extract-worker.mjs"),
  );
}
