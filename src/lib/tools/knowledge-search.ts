import "server-only";
import { AsyncLocalStorage } from "node:async_hooks";

// The door through which the search_knowledge pack reaches the business's indexed knowledge. The search
// itself is a use case (src/lib/knowledge/search.ts, above this layer) that boot installs here; the pack sees
// only this function type, so `npm run check:packs` can run it on canned passages without a database.

export type KnowledgePassage = {
  title: string;
  url: string;
  section: string;
  text: string;
  /** "strong": holds most of a query's words and ranks near the best; "partial": shares only some. */
  strength?: "strong" | "partial";
};

export type KnowledgeFindings = {
  /** A curated answer the business wrote for this question, when one matches. */
  curated: { question: string; answer: string } | null;
  passages: KnowledgePassage[];
};

export type KnowledgeSearcher = (
  tenantId: string,
  /** One to three queries, the first in the pages' language; their results are fused. */
  queries: readonly string[],
  signal: AbortSignal,
) => Promise<KnowledgeFindings>;

const g = globalThis as unknown as {
  __michiKnowledgeSearcher?: KnowledgeSearcher;
  __michiKnowledgeScope?: AsyncLocalStorage<KnowledgeSearcher>;
};
g.__michiKnowledgeScope ??= new AsyncLocalStorage<KnowledgeSearcher>();
const scope = g.__michiKnowledgeScope;

/** Installed once per process by boot (and by tests that run turns). */
export function installKnowledgeSearcher(fn: KnowledgeSearcher | null): void {
  g.__michiKnowledgeSearcher = fn ?? undefined;
}

/** Runs `fn` with another searcher (the conformance kit's canned passages), for this call chain only. */
export function withKnowledgeSearcher<T>(fn: KnowledgeSearcher, run: () => Promise<T>): Promise<T> {
  return scope.run(fn, run);
}

export function knowledgeSearcher(): KnowledgeSearcher | null {
  return scope.getStore() ?? g.__michiKnowledgeSearcher ?? null;
}
