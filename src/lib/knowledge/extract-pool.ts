import "server-only";
import { existsSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Worker, type WorkerOptions } from "node:worker_threads";
import type { ExtractFn, ExtractOutcome } from "./deps";

// Extraction workers, each reading one document at a time, so a document that exhausts its worker (its heap
// limit, or the deadline after which the worker is terminated) fails alone, with its reason, and the others
// wait for or run on another worker. A worker is started on first use and after one is lost. The production
// build bundles ./extract-worker.ts into extract-worker.mjs beside the server
// (scripts/build-extract-worker.mjs); from source (tests, tsx) the worker runs the TypeScript through tsx.

const DEADLINE_MS = 60_000;
const WORKERS = 2;
// The heap a parser may use: a DOM of a 5 MB page or mammoth's tree of a 10 MB part fits with room to spare.
const RESOURCE_LIMITS = { maxOldGenerationSizeMb: 384, maxYoungGenerationSizeMb: 48, stackSizeMb: 4 };

function startWorker(entry: URL | undefined, heapMb: number | undefined): Worker {
  const resourceLimits = heapMb ? { ...RESOURCE_LIMITS, maxOldGenerationSizeMb: heapMb } : RESOURCE_LIMITS;
  const limits: WorkerOptions = { resourceLimits };
  if (entry) return new Worker(entry, limits);
  // turbopackIgnore: looked up at run time; traced, they put src/ into the standalone output.
  const built = [
    path.join(/* turbopackIgnore: true */ process.cwd(), "extract-worker.mjs"),
    path.join(/* turbopackIgnore: true */ process.cwd(), ".next/extract-worker.mjs"),
  ];
  const found = built.find((p) => existsSync(p));
  if (found) return new Worker(found, limits);
  // From source: Node 20 does not apply loader flags to a worker's entry file, so the entry registers tsx first.
  const file = pathToFileURL(
    path.join(/* turbopackIgnore: true */ process.cwd(), "src/lib/knowledge/extract-worker.ts"),
  ).href;
  const boot = `import("tsx/esm/api").then((m) => { m.register(); return import(${JSON.stringify(file)}); })`;
  return new Worker(boot, { ...limits, eval: true, execArgv: ["--conditions=react-server"] });
}

type Job = { id: number; input: Parameters<ExtractFn>[0]; resolve: (r: ExtractOutcome) => void };
type Slot = { w: Worker; ready: boolean; job: Job | null; timer: NodeJS.Timeout | null };

export type ExtractPool = { extract: ExtractFn; close(): Promise<void> };

export type ExtractPoolOptions = {
  /** Test seam: another worker script speaking the same messages. */
  entry?: URL;
  deadlineMs?: number;
  workers?: number;
  /** Test seam: a smaller heap, so a worker that fills it dies in milliseconds even on a busy machine. */
  heapMb?: number;
};

export function createExtractPool(opts: ExtractPoolOptions = {}): ExtractPool {
  const deadlineMs = opts.deadlineMs ?? DEADLINE_MS;
  const size = opts.workers ?? WORKERS;
  const slots = new Set<Slot>();
  const waiting: Job[] = [];
  let nextId = 1;
  let closed = false;

  const settle = (slot: Slot, result: ExtractOutcome) => {
    const job = slot.job;
    if (slot.timer) clearTimeout(slot.timer);
    slot.job = null;
    slot.timer = null;
    job?.resolve(result);
  };

  /** The worker goes (stuck, out of memory, crashed); only the document it was reading fails. */
  const lose = (slot: Slot, result: ExtractOutcome) => {
    if (!slots.delete(slot)) return;
    settle(slot, result);
    void slot.w.terminate();
    pump();
  };

  const run = (slot: Slot, job: Job) => {
    slot.job = job;
    slot.timer = setTimeout(
      () =>
        lose(slot, {
          ok: false,
          reason: "timeout",
          message: `Reading the document took longer than ${Math.round(deadlineMs / 1000)} s.`,
        }),
      deadlineMs,
    );
    const { input } = job;
    slot.w.postMessage({ id: job.id, bytes: input.bytes, contentType: input.contentType, url: input.url });
  };

  const spawn = () => {
    const slot: Slot = { w: startWorker(opts.entry, opts.heapMb), ready: false, job: null, timer: null };
    slots.add(slot);
    slot.w.unref();
    slot.w.on("message", (m: { id: number; result: ExtractOutcome; ready?: boolean }) => {
      if (m.ready) {
        slot.ready = true;
        return pump();
      }
      if (slot.job?.id !== m.id) return;
      settle(slot, m.result);
      pump();
    });
    slot.w.on("error", () => {});
    slot.w.on("exit", () =>
      lose(slot, {
        ok: false,
        reason: "too_large",
        message: "Reading the document needed more memory than one document may use.",
      }),
    );
  };

  function pump() {
    if (closed) return;
    for (const slot of slots) {
      if (waiting.length === 0) return;
      if (slot.ready && !slot.job) run(slot, waiting.shift()!);
    }
    let starting = [...slots].filter((s) => !s.ready).length;
    while (waiting.length > starting && slots.size < size) {
      spawn();
      starting += 1;
    }
  }

  const extract: ExtractFn = (input) =>
    new Promise<ExtractOutcome>((resolve) => {
      waiting.push({ id: nextId++, input, resolve });
      pump();
    });

  return {
    extract,
    async close() {
      closed = true;
      const closedResult = { ok: false, reason: "unreadable", message: "closed" } as const;
      for (const job of waiting.splice(0)) job.resolve(closedResult);
      const all = [...slots];
      slots.clear();
      for (const slot of all) settle(slot, closedResult);
      await Promise.all(all.map((s) => s.w.terminate()));
    },
  };
}
