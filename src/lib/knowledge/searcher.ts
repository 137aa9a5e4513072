import "server-only";
import type { DbHandle } from "@/lib/db/client";
import { env } from "@/lib/env";
import type { KnowledgeFindings, KnowledgeSearcher } from "@/lib/tools/knowledge-search";
import { vectorHits } from "./embed";
import { type EmbeddingsClient, embeddingsClient, embeddingsConfig } from "./embeddings";
import { questionText } from "./extract/search-text";
import { type SearchOptions, type SearchResult, searchKnowledge } from "./search";

// The searcher the search_knowledge pack is handed in its run context (ToolContext.knowledge): whoever runs a
// turn or a pack (the widget's and the channels' wiring, the Tools page's test run, the Knowledge page's test
// question, the bench) passes one, so no process-wide install decides which database a search reads. Kept
// apart from runtime.ts so a chat route loads search without the sync jobs and the extraction pool.

const g = globalThis as unknown as { __michiEmbeddings?: EmbeddingsClient | null };

/** The operator's embeddings model (MICHI_EMBEDDINGS), or null: search is then full text only. */
export function embeddingsFor(): EmbeddingsClient | null {
  if (g.__michiEmbeddings === undefined) {
    const config = embeddingsConfig(env());
    g.__michiEmbeddings = config ? embeddingsClient(config) : null;
  }
  return g.__michiEmbeddings;
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

/** The same over the database the process has open when a search runs (the widget's wiring reads it late). */
export function processKnowledgeSearcher(db: () => Promise<DbHandle>): KnowledgeSearcher {
  return async (tenantId, queries, signal) => knowledgeSearcherFor(await db())(tenantId, queries, signal);
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
