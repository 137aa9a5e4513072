import "server-only";
import { readFileSync } from "node:fs";
import type { DbHandle } from "@/lib/db/client";
import { env } from "@/lib/env";
import { registerJob } from "@/lib/jobs";
import { log } from "@/lib/log";
import type { JobQueue, QueueWorker } from "@/lib/queue";
import { createPageFetcher } from "@/lib/security/fetch-text";
import type { KnowledgeDeps } from "./deps";
import { embedWorker, enqueueMissingEmbeddings } from "./embed";
import { chunkSections, searchText } from "./extract";
import { createExtractPool } from "./extract-pool";
import { embeddingsFor } from "./searcher";
import { knowledgeWorkers, startDueSyncs } from "./worker";

// The process's knowledge wiring: the jobs' dependencies (guarded page fetcher, extraction worker, queue) and
// the schedule's sweep. The search_knowledge pack's searcher is not installed here: whoever runs the pack
// passes one in its run context (./searcher.ts).

const g = globalThis as unknown as { __michiKnowledgeDeps?: Promise<KnowledgeDeps> };

export function defaultKnowledgeDeps(db: DbHandle, queue: () => Promise<JobQueue>): Promise<KnowledgeDeps> {
  g.__michiKnowledgeDeps ??= (async () => {
    const e = env();
    const pool = createExtractPool();
    return {
      db,
      queue: await queue(),
      fetcher: createPageFetcher({
        allowHosts: e.MICHI_FETCH_ALLOW_HOSTS,
        extraCaPem: e.MICHI_FETCH_EXTRA_CA ? readFileSync(e.MICHI_FETCH_EXTRA_CA, "utf8") : undefined,
      }),
      extract: pool.extract,
      chunk: (sections) => chunkSections(sections),
      searchText,
      allowHosts: e.MICHI_FETCH_ALLOW_HOSTS,
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
      intervalMs: 500,
      embeddings: embeddingsFor() !== null,
    };
  })();
  return g.__michiKnowledgeDeps;
}

/** The workers for the process queue; their dependencies are built on the first job. */
export function processKnowledgeWorkers(db: DbHandle, queue: () => Promise<JobQueue>): QueueWorker[] {
  const embedDeps = async () => ({ queue: await queue(), client: embeddingsFor() });
  return [...knowledgeWorkers(() => defaultKnowledgeDeps(db, queue)), embedWorker(db, embedDeps)];
}

/** Boot: the schedule's sweep (every minute; due sources are taken by one instance). */
export function startKnowledge(db: DbHandle, queue: () => Promise<JobQueue>): void {
  registerJob({
    name: "knowledge-schedule",
    everyMs: 60_000,
    run: async () => {
      try {
        await startDueSyncs(db, await queue());
        const client = embeddingsFor();
        if (client) await enqueueMissingEmbeddings(db, await queue(), client);
      } catch (err) {
        log().warn({ err: { message: (err as Error).message } }, "knowledge schedule sweep failed");
      }
    },
  });
}
