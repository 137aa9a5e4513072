import "server-only";
import { readFileSync } from "node:fs";
import type { DbHandle } from "@/lib/db/client";
import { env } from "@/lib/env";
import { registerJob } from "@/lib/jobs";
import { log } from "@/lib/log";
import type { JobQueue, QueueWorker } from "@/lib/queue";
import { createPageFetcher } from "@/lib/security/fetch-text";
import {
  installKnowledgeSearcher,
  type KnowledgeFindings,
  type KnowledgeSearcher,
} from "@/lib/tools/knowledge-search";
import type { KnowledgeDeps } from "./deps";
import { embedWorker, enqueueMissingEmbeddings, vectorHits } from "./embed";
import { type EmbeddingsClient, embeddingsClient, embeddingsConfig } from "./embeddings";
import { chunkSections, questionText, searchText } from "./extract";
import { createExtractPool } from "./extract-pool";
import { type SearchOptions, type SearchResult, searchKnowledge } from "./search";
import { knowledgeWorkers, startDueSyncs } from "./worker";

// The process's knowledge wiring: the jobs' dependencies (guarded page fetcher, extraction worker, queue), the
// searcher the search_knowledge pack reads through, and the schedule's sweep.

const g = globalThis as unknown as {
  __michiKnowledgeDeps?: Promise<KnowledgeDeps>;
  __michiEmbeddings?: EmbeddingsClient | null;
};

/** The operator's embeddings model (MICHI_EMBEDDINGS), or null: search is then full text only. */
function embeddingsFor(): EmbeddingsClient | null {
  if (g.__michiEmbeddings === undefined) {
    const config = embeddingsConfig(env());
    g.__michiEmbeddings = config ? embeddingsClient(config) : null;
  }
  return g.__michiEmbeddings;
}

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

/** Search as the chat runs it: Japanese split into words, vectors when a model is configured. */
export function knowledgeSearchOptions(signal?: AbortSignal): SearchOptions {
  const client = embeddingsFor();
  return {
    searchText: (t) => questionText(t),
    ...(client ? { vectorHits: (d, t, q) => vectorHits(d, client, t, q, signal) } : {}),
  };
}

/** What the pack calls: hybrid search under the tenant, projected to titles, URLs and passages. */
export function knowledgeSearcherFor(db: DbHandle): KnowledgeSearcher {
  return async (tenantId, queries, signal) =>
    findingsOf(await searchKnowledge(db, tenantId, queries, knowledgeSearchOptions(signal)), queries);
}

/** A search's result as the pack sees it: titles, addresses, sections, passages and their strength. */
export function findingsOf(r: SearchResult, queries: readonly string[]): KnowledgeFindings {
  return {
    curated: r.curated
      ? { question: r.curated.questions[0] ?? queries[0] ?? "", answer: r.curated.answer }
      : null,
    passages: r.passages.map((p) => ({
      title: p.title,
      url: p.url,
      section: p.headingPath,
      text: p.text,
      strength: p.strength,
    })),
  };
}

/** Boot: the searcher and the schedule's sweep (every minute; due sources are taken by one instance). */
export function startKnowledge(db: DbHandle, queue: () => Promise<JobQueue>): void {
  installKnowledgeSearcher(knowledgeSearcherFor(db));
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
