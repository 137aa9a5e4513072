import "server-only";
import type { DbHandle } from "@/lib/db/client";
import { type AnswerHit, answerHits, fullTextHits, type TextHit } from "@/lib/db/queries/knowledge-search";

// Hybrid retrieval for one question: full text (stemmed per language, accents folded, typos corrected against
// the tenant's own words) and, when an embeddings model is configured, vector similarity; the ranked lists are
// fused with reciprocal rank fusion (k = 60), which needs no score calibration between them. A curated answer
// that matches comes first, whatever the passages.

export type Passage = {
  chunkId: string;
  url: string;
  title: string;
  headingPath: string;
  text: string;
  lang: string;
  /** The fused score, and each list's own rank (1 = best) when the chunk was in it. */
  score: number;
  ranks: { text?: number; vector?: number };
  /** "strong" when the passage holds most of a query's words and scores near the best; else "partial". */
  strength: "strong" | "partial";
  /** Share of the best-matching query's words the passage holds, 0..1 (0 for a vector-only hit). */
  matched: number;
  /** Which of the queries (their indexes, in order) found the passage, for the Knowledge page's test. */
  foundBy?: number[];
};

export type SearchResult = {
  curated: AnswerHit | null;
  /** Empty only when no word of any query matched anything (and no vector hit came back). */
  passages: Passage[];
  /** The same passages (kept for the admin's test, which shows them with their scores). */
  ranked: Passage[];
  /** The largest share of a query's words found in one of the passages, 0..1. */
  relevance: number;
  /** Words the typo correction added to the query. */
  corrected: string;
};

export type SearchOptions = {
  /** Distinct pages to return: one passage from each before a second from any (default 5). */
  limit?: number;
  /** Splits Japanese (and other unspaced scripts) into words, as at indexing time. */
  searchText?: (text: string) => string;
  /** Vector hits, best first, when an embeddings model is configured (./vector-search.ts). */
  vectorHits?: (db: DbHandle, tenantId: string, query: string) => Promise<TextHit[]>;
};

const RRF_K = 60;

/**
 * There is no relevance bar any more (issue 40). The "half the question's words" bar of earlier passes turned
 * away 7 answerable blind questions whose right page ranked first and only 1 of 12 unanswerable ones: a page
 * can use a question's words without answering it, so word share cannot tell. The platform says "nothing
 * relevant" only when no word matched; otherwise each passage carries a strength, and the model, told to
 * answer only from passages that answer, is the judge (src/lib/tools/packs/search-knowledge.ts).
 */
const STRONG_MATCHED = 0.5;
const STRONG_SCORE = 0.5;

/** `weight` scales a list's reciprocal ranks: the first query's lists 1, the model's other wordings 0.5. */
type List = { name: "text" | "vector"; hits: TextHit[]; weight?: number; query?: number };

export function fuse(lists: List[]): Passage[] {
  const byId = new Map<string, Passage>();
  for (const list of lists) {
    list.hits.forEach((h, i) => {
      const p =
        byId.get(h.chunkId) ??
        ({
          chunkId: h.chunkId,
          url: h.url,
          title: h.title,
          headingPath: h.headingPath,
          text: h.text,
          lang: h.lang,
          score: 0,
          ranks: {},
          strength: "partial",
          matched: 0,
        } satisfies Passage);
      p.score += (list.weight ?? 1) / (RRF_K + i + 1);
      if (list.name === "text") p.matched = Math.max(p.matched, h.matched ?? 0);
      p.ranks[list.name] = Math.min(p.ranks[list.name] ?? i + 1, i + 1);
      if (list.query !== undefined && !p.foundBy?.includes(list.query))
        p.foundBy = [...(p.foundBy ?? []), list.query].sort((a, b) => a - b);
      byId.set(h.chunkId, p);
    });
  }
  return [...byId.values()].sort((a, b) => b.score - a.score);
}

/** One passage from each of the best `limit` pages, then second passages while there are fewer pages. */
export function spreadPages(fused: Passage[], limit: number): Passage[] {
  const firsts: Passage[] = [];
  const seconds: Passage[] = [];
  const seen = new Map<string, number>();
  for (const p of fused) {
    const n = seen.get(p.url) ?? 0;
    seen.set(p.url, n + 1);
    if (n === 0 && firsts.length < limit) firsts.push(p);
    else if (n === 1) seconds.push(p);
  }
  return [...firsts, ...seconds].slice(0, Math.max(limit, firsts.length));
}

/**
 * Searches with one to three queries (the visitor's words, and the model's rewordings in the pages'
 * language): each query's full-text and vector lists are fused together by reciprocal rank fusion.
 */
export async function searchKnowledge(
  db: DbHandle,
  tenantId: string,
  query: string | readonly string[],
  opts: SearchOptions = {},
): Promise<SearchResult> {
  const queries = (typeof query === "string" ? [query] : [...query])
    .map((q) => q.trim())
    .filter(Boolean)
    .slice(0, 3);
  const limit = opts.limit ?? 5;
  // The vector searches (an embedding request, then their own query) run beside the full-text ones.
  const [{ texts, curated }, vectors] = await Promise.all([
    db.forTenant(tenantId, async (tx) => {
      const texts = [];
      for (const q of queries)
        texts.push(await fullTextHits(tx, opts.searchText ? opts.searchText(q) : q, 40));
      let curated: AnswerHit | null = null;
      for (const q of queries) curated ??= (await answerHits(tx, q, 1))[0] ?? null;
      return { texts, curated };
    }),
    opts.vectorHits ? Promise.all(queries.map((q) => opts.vectorHits!(db, tenantId, q))) : [],
  ]);
  // The first query is in the pages' language (the pack asks the model for that); the others, often the
  // visitor's own words in another language, only break ties and add what it missed. Equal weights cost the
  // cross-language dev questions a third of their recall@3.
  const weight = (i: number) => (i === 0 ? 1 : 0.5);
  const lists: List[] = [
    ...texts.map((t, i) => ({ name: "text" as const, hits: t.hits, weight: weight(i), query: i })),
    ...vectors.map((hits, i) => ({ name: "vector" as const, hits, weight: weight(i), query: i })),
  ];
  const fused = fuse(lists);
  const top = fused[0]?.score ?? 0;
  for (const p of fused)
    p.strength = p.matched >= STRONG_MATCHED && p.score >= top * STRONG_SCORE ? "strong" : "partial";
  const passages = spreadPages(fused, limit);
  const relevance = Math.max(0, ...passages.map((p) => p.matched));
  return {
    curated,
    passages,
    ranked: passages,
    relevance,
    corrected: texts
      .map((t) => t.corrected)
      .filter(Boolean)
      .join(" "),
  };
}
