import "server-only";
import { sql } from "drizzle-orm";
import type { TenantTx } from "../client";
import { rowsOf } from "../client";

// Retrieval over a tenant's chunks, under row-level security like every tenant query, on Postgres and PGlite
// alike (only contrib extensions both ship: unaccent, pg_trgm). Fusion of the lists happens in
// src/lib/knowledge/search.ts.

/** The languages chunks are indexed in ("und" = no stemming); each query is parsed once per language. */
const INDEX_LANGS = ["en", "es", "fr", "de", "ja", "und"];

export type TextHit = {
  chunkId: string;
  pageId: string;
  url: string;
  title: string;
  headingPath: string;
  text: string;
  lang: string;
  score: number;
  /** Share of the query's (stemmed) words the chunk contains, 0..1; full-text hits only. */
  matched?: number;
};

/**
 * Full-text hits, best first. Query words the tenant's pages never use are first corrected to the most
 * similar word they do use (trigram similarity over the tenant's vocabulary), so "refund polcy" finds
 * "refund policy". `words` is the query as the index sees it (Japanese split into words).
 */
export async function fullTextHits(
  tx: TenantTx,
  words: string,
  limit: number,
): Promise<{ hits: TextHit[]; corrected: string }> {
  const rows = await rowsOf<TextHit & { corrected: string }>(tx, fullTextSql(words, limit));
  return { hits: rows, corrected: rows[0]?.corrected ?? "" };
}

/**
 * The full-text statement (exported for EXPLAIN in the bench). The matching runs in
 * michi_knowledge_text_hits (drizzle/0025; its ranking as of 0040), where the GIN index on tsv can be used:
 * under row-level security Postgres never lets a non-leakproof operator such as @@ drive an index, so every
 * chunk of the tenant was read and matched. The function filters the tenant this transaction entered itself.
 * The hits' pages are read in one pass (a plain join scanned the tenant's pages once per hit).
 */
export function fullTextSql(words: string, limit: number) {
  return sql`with hits as materialized (
          select * from michi_knowledge_text_hits(${words}, ${sql.param(INDEX_LANGS)}::text[], ${limit})
        ),
        pages as materialized (
          select id, url, title from knowledge_pages
          where status = 'indexed' and id = any((select array_agg(page_id) from hits)::uuid[])
        )
        select h.chunk_id as "chunkId", h.page_id as "pageId", p.url, p.title, h.heading_path as "headingPath",
               h.body as text, h.lang, h.score, h.matched, h.corrected
        from hits h join pages p on p.id = h.page_id
        order by h.score desc`;
}

export type AnswerHit = {
  id: string;
  questions: string[];
  answer: string;
  score: number;
  similarity: number;
};

/**
 * Curated answers whose questions match: every meaningful word of the query (in any language's parse), or a
 * close similarity to one of its questions (a reworded or misspelt question).
 */
export async function answerHits(tx: TenantTx, query: string, limit = 3): Promise<AnswerHit[]> {
  return rowsOf<AnswerHit>(
    tx,
    sql`with q as (
          select l as lang, plainto_tsquery(michi_knowledge_config(l), michi_search_fold(${query})) as tq
          from unnest(${sql.param(INDEX_LANGS)}::text[]) as l
        )
        select a.id, a.questions, a.answer,
               coalesce(max(ts_rank_cd(a.tsv, q.tq, 1)) filter (where a.tsv @@ q.tq), 0)::float8 as score,
               max((select max(similarity(michi_search_fold(x), michi_search_fold(${query}))) from unnest(a.questions) as x))::float8 as similarity
        from knowledge_answers a join q on q.lang = a.lang
        group by a.id
        having bool_or(numnode(q.tq) > 0 and a.tsv @@ q.tq) or max((select max(similarity(michi_search_fold(x), michi_search_fold(${query}))) from unnest(a.questions) as x)) >= 0.45
        order by similarity desc, score desc
        limit ${limit}`,
  );
}

/** The languages of a tenant's indexed pages, most pages first (for the pack's description). */
export async function indexedLanguages(tx: TenantTx): Promise<string[]> {
  const rows = await rowsOf<{ lang: string }>(
    tx,
    sql`select lang from knowledge_pages where status = 'indexed' and lang is not null and lang <> 'und'
        group by lang order by count(*) desc`,
  );
  return rows.map((r) => r.lang);
}
