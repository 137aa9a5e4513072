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
  passages: Passage[];
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
  const { text, curated } = await db.forTenant(tenantId, async (tx) => ({
    text: await fullTextHits(tx, words, 40),
    curated: (await answerHits(tx, query, 1))[0] ?? null,
  }));
  const lists: { name: "text" | "vector"; hits: TextHit[] }[] = [{ name: "text", hits: text.hits }];
  if (opts.vectorHits) lists.push({ name: "vector", hits: await opts.vectorHits(db, tenantId, query) });
  const perUrl = new Map<string, number>();
  const passages: Passage[] = [];
  for (const p of fuse(lists)) {
    const n = perUrl.get(p.url) ?? 0;
    if (n >= perPage) continue;
    perUrl.set(p.url, n + 1);
    passages.push(p);
    if (passages.length >= limit) break;
  }
  return { curated, passages, corrected: text.corrected };
}
