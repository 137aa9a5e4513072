import "server-only";
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { log } from "../log";

// The embedded database (PGlite) runs in a worker thread and serves the Postgres wire protocol on a private
// Unix socket (src/lib/db/pglite-worker.mjs), so every query runs off the main event loop and the app reaches
// both databases through the same `pg` code. See docs/architecture.md, "The embedded database".

/**
 * Postgres settings for the embedded database. shared_buffers is Postgres's page cache inside PGlite's
 * WebAssembly memory, and PGlite's default (128 MB) is touched at start: ~120 MB of resident memory before the
 * first visitor. The data of a single install fits in far less, and the OS page cache still holds the files.
 */
export const EMBEDDED_SETTINGS = ["shared_buffers=16MB"];

export type EmbeddedServer = {
  /** The socket's directory, which `pg` takes as its host. */
  host: string;
  port: number;
  stop(): Promise<void>;
};

function workerFile(): string {
  // turbopackIgnore: these are looked up at run time; traced, they put src/ into the standalone output,
  // where scripts/build.mjs already copies the worker.
  const candidates = [
    // The standalone build (scripts/build.mjs copies it beside michi-server.mjs, which runs from there).
    path.join(/* turbopackIgnore: true */ process.cwd(), "pglite-worker.mjs"),
    // tsx and vitest load this module from src/.
    path.resolve(/* turbopackIgnore: true */ import.meta.dirname ?? ".", "pglite-worker.mjs"),
    // `next dev` bundles this module, so its own location says nothing; it runs from the repository root.
    path.join(/* turbopackIgnore: true */ process.cwd(), "src/lib/db/pglite-worker.mjs"),
  ];
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`pglite-worker.mjs not found (looked in ${candidates.join(", ")})`);
  return found;
}

type FromWorker =
  | { type: "ready"; host: string; port: number }
  | { type: "initialised" }
  | { type: "closed" };

function spawn(dataDir: string | null, mode: "serve" | "init") {
  const worker = new Worker(workerFile(), { workerData: { dataDir, mode, settings: EMBEDDED_SETTINGS } });
  const exited = new Promise<number>((resolve) => worker.once("exit", resolve));
  const first = new Promise<FromWorker>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
    void exited.then((code) =>
      reject(new Error(`the embedded database stopped while starting (code ${code})`)),
    );
  });
  return { worker, exited, first };
}

export async function startEmbedded(dataDir: string | null): Promise<EmbeddedServer> {
  const dir = dataDir ? path.resolve(dataDir) : null;
  if (dir) {
    mkdirSync(path.dirname(dir), { recursive: true });
    if (!existsSync(path.join(dir, "PG_VERSION"))) {
      // First start: initdb runs in a throwaway thread, so the memory it takes is returned before serving.
      const init = spawn(dir, "init");
      await init.first;
      await init.exited;
    }
  }
  const { worker, exited, first } = spawn(dir, "serve");
  const ready = await first;
  if (ready.type !== "ready") throw new Error(`the embedded database answered ${ready.type} while starting`);
  // Running on its own thread, the database must not keep the process alive once the app is done with it.
  worker.unref();
  let stopping: Promise<void> | null = null;
  void exited.then((code) => {
    // Queries now fail with connection errors (the app answers db_unavailable); say why once, plainly.
    if (!stopping) log().error({ code }, "the embedded database worker stopped; restart the server");
  });
  return {
    host: ready.host,
    port: ready.port,
    stop() {
      stopping ??= (async () => {
        const closed = new Promise<void>((resolve) => {
          worker.on("message", (m: FromWorker) => m.type === "closed" && resolve());
        });
        worker.postMessage({ type: "close" });
        // Closing checkpoints the data directory; a worker that already died has nothing left to flush.
        await Promise.race([closed, exited]);
        await worker.terminate();
      })();
      return stopping;
    },
  };
}
