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
};

export type SearchResult = {
  curated: AnswerHit | null;
  /** Empty when nothing relevant was found (see MIN_MATCHED); `ranked` keeps them for the admin's test. */
  passages: Passage[];
  ranked: Passage[];
  /** The largest share of the question's words found in one of the best full-text passages, 0..1. */
  relevance: number;
  /** Words the typo correction added to the query. */
  corrected: string;
};

export type SearchOptions = {
  limit?: number;
  /** At most this many passages from one page, so five passages cover more than one page. */
  perPage?: number;
  /** Splits Japanese (and other unspaced scripts) into words, as at indexing time. */
  searchText?: (text: string) => string;
  /** Vector hits, best first, when an embeddings model is configured (./vector-search.ts). */
  vectorHits?: (db: DbHandle, tenantId: string, query: string) => Promise<TextHit[]>;
};

const RRF_K = 60;

/**
 * The relevance bar: at least half of the question's words (stemmed, stop words left out, a corrected typo
 * counting as its correction) must be in one of the five best full-text passages, else the search says
 * "nothing relevant" and the model says it does not know. Measured on the logingov question set
 * (bench/knowledge/recall.ts): it turns away most questions the site does not answer (weather, recipes,
 * fishing licences) while recall@5 stays above 0.8; a bar of 0.4 kept one more answer but let half the
 * unanswerable questions through. A question that only shares a name with the site ("Login.gov's share
 * price") still passes: words alone cannot tell. Vector hits do not lift the bar (their similarity has no
 * scale that holds across embedding models).
 */
export const MIN_MATCHED = 0.5;
const RELEVANCE_DEPTH = 5;

export function fuse(lists: { name: "text" | "vector"; hits: TextHit[] }[]): Passage[] {
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
        } satisfies Passage);
      p.score += 1 / (RRF_K + i + 1);
      p.ranks[list.name] = i + 1;
      byId.set(h.chunkId, p);
    });
  }
  return [...byId.values()].sort((a, b) => b.score - a.score);
}

export async function searchKnowledge(
  db: DbHandle,
  tenantId: string,
  query: string,
  opts: SearchOptions = {},
): Promise<SearchResult> {
  const limit = opts.limit ?? 5;
  const perPage = opts.perPage ?? 2;
  const words = opts.searchText ? opts.searchText(query) : query;
  // The vector search (an embedding request, then its own query) runs beside the full-text one, not after it.
  const [{ text, curated }, vector] = await Promise.all([
    db.forTenant(tenantId, async (tx) => ({
      text: await fullTextHits(tx, words, 40),
      curated: (await answerHits(tx, query, 1))[0] ?? null,
    })),
    opts.vectorHits ? opts.vectorHits(db, tenantId, query) : null,
  ]);
  const lists: { name: "text" | "vector"; hits: TextHit[] }[] = [{ name: "text", hits: text.hits }];
  if (vector) lists.push({ name: "vector", hits: vector });
  const perUrl = new Map<string, number>();
  const ranked: Passage[] = [];
  for (const p of fuse(lists)) {
    const n = perUrl.get(p.url) ?? 0;
    if (n >= perPage) continue;
    perUrl.set(p.url, n + 1);
    ranked.push(p);
    if (ranked.length >= limit) break;
  }
  const relevance = Math.max(0, ...text.hits.slice(0, RELEVANCE_DEPTH).map((h) => h.matched ?? 0));
  const passages = relevance >= MIN_MATCHED ? ranked : [];
  return { curated, passages, ranked, relevance, corrected: text.corrected };
}
