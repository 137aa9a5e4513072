import "server-only";
import { existsSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { ExtractFn, ExtractOutcome } from "./deps";

// One extraction worker per process, started on first use, restarted if it dies or overruns: the worker is
// also the hard stop for a parser stuck inside one step (the extractor's own clock is checked between steps).
// The production build bundles ./extract-worker.ts into extract-worker.mjs beside the server
// (scripts/build-extract-worker.mjs); from source (tests, tsx) the worker runs the TypeScript through tsx.

const HARD_TIMEOUT_MS = 60_000;

function startWorker(): Worker {
  const limits = { resourceLimits: { maxOldGenerationSizeMb: 512 } };
  const built = [
    path.join(process.cwd(), "extract-worker.mjs"),
    path.join(process.cwd(), ".next/extract-worker.mjs"),
  ];
  const found = built.find((p) => existsSync(p));
  if (found) return new Worker(found, limits);
  // From source: Node 20 does not apply loader flags to a worker's entry file, so the entry registers tsx first.
  const file = pathToFileURL(path.join(process.cwd(), "src/lib/knowledge/extract-worker.ts")).href;
  const boot = `import("tsx/esm/api").then((m) => { m.register(); return import(${JSON.stringify(file)}); })`;
  return new Worker(boot, { ...limits, eval: true, execArgv: ["--conditions=react-server"] });
}

type Pending = { resolve: (r: ExtractOutcome) => void; timer: NodeJS.Timeout };

export type ExtractPool = { extract: ExtractFn; close(): Promise<void> };

export function createExtractPool(): ExtractPool {
  let worker: { w: Worker; ready: Promise<void> } | null = null;
  let nextId = 1;
  const pending = new Map<number, Pending>();

  const failAll = (message: string) => {
    for (const [id, p] of pending) {
      clearTimeout(p.timer);
      p.resolve({ ok: false, reason: "unreadable", message });
      pending.delete(id);
    }
  };

  const start = () => {
    const w = startWorker();
    w.unref();
    let markReady!: () => void;
    const ready = new Promise<void>((r) => {
      markReady = r;
    });
    w.on("message", (m: { id: number; result: ExtractOutcome; ready?: boolean }) => {
      if (m.ready) return markReady();
      const p = pending.get(m.id);
      if (!p) return;
      clearTimeout(p.timer);
      pending.delete(m.id);
      p.resolve(m.result);
    });
    w.on("error", () => {});
    w.on("exit", () => {
      markReady();
      if (worker?.w === w) worker = null;
      failAll("The document could not be read (the reader stopped).");
    });
    return { w, ready };
  };

  const extract: ExtractFn = (input) =>
    new Promise<ExtractOutcome>((resolve) => {
      worker ??= start();
      const { w, ready } = worker;
      const id = nextId++;
      const timer = setTimeout(() => {
        pending.delete(id);
        resolve({ ok: false, reason: "timeout", message: "Reading the document took too long." });
        // The parser is stuck: the whole worker goes, and the next document gets a fresh one.
        if (worker?.w === w) worker = null;
        void w.terminate();
      }, HARD_TIMEOUT_MS);
      pending.set(id, { resolve, timer });
      void ready.then(() =>
        w.postMessage({ id, bytes: input.bytes, contentType: input.contentType, url: input.url }),
      );
    });

  return {
    extract,
    async close() {
      const current = worker;
      worker = null;
      failAll("closed");
      if (current) await current.w.terminate();
    },
  };
}
