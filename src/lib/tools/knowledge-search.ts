import "server-only";

// The door through which the search_knowledge pack reaches the business's indexed knowledge. The search
// itself is a use case (src/lib/knowledge/searcher.ts, above this layer) that whoever runs the pack hands it
// in its run context (ToolContext.knowledge); the pack sees only this function type, so
// `npm run check:packs` can run it on canned passages without a database.

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
