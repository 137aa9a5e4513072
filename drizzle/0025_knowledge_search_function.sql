-- Knowledge retrieval that can use its indexes (issue 27: p95 at 10,000 chunks). Under row-level security
-- Postgres evaluates the policy's predicate before any non-leakproof operator of the query, and neither the
-- full-text match (@@, ts_match_vq) nor pg_trgm's % is leakproof: EXPLAIN showed the GIN index on tsv never
-- used, every chunk of the tenant read and matched, once per language. Marking those operators LEAKPROOF needs
-- a superuser (and would be untrue). So the search runs in a SECURITY DEFINER function owned by the platform
-- role, where the policies are the platform's (USING (true)), and it filters the tenant explicitly: the tenant
-- is the one the calling transaction entered (michi_current_tenant(), set by db.forTenant exactly as for the
-- policies), never a parameter, so a caller cannot name another tenant. No tenant entered, no rows.
--
-- One scan instead of one per language: the chunks are found by the OR of every language's query (one GIN
-- bitmap scan), then each is matched and ranked with its own language's query.
CREATE INDEX IF NOT EXISTS "knowledge_words_trgm_idx" ON "knowledge_words" USING gin ("word" public.gin_trgm_ops)
  WITH (fastupdate = off);
--> statement-breakpoint
-- GIN's fast update keeps new entries in a pending list (up to 4 MB) that every search reads from start to end
-- until VACUUM merges it, and the embedded database never vacuums (PGlite has no autovacuum): right after a
-- sync, searches read the whole list (the bench measured p50 ~110 ms instead of ~20 ms at 10,000 chunks). The
-- sync writes in the background, where inserting straight into the index costs nothing a visitor waits for.
ALTER INDEX "knowledge_chunks_tsv_idx" SET (fastupdate = off);
--> statement-breakpoint
SELECT gin_clean_pending_list('knowledge_chunks_tsv_idx'::regclass);
--> statement-breakpoint
-- `matched` is the share of the query's words (after stemming, stop words left out) that the chunk contains,
-- a corrected typo counting as its correction; computed for the returned rows only: the pack's relevance threshold reads it (src/lib/knowledge/search.ts).
-- Which languages a tenant's chunks are in, answered from the index alone.
CREATE INDEX IF NOT EXISTS "knowledge_chunks_lang_idx" ON "knowledge_chunks" ("tenant_id", "lang");
--> statement-breakpoint
CREATE OR REPLACE FUNCTION michi_knowledge_text_hits(p_words text, p_langs text[], p_limit integer)
RETURNS TABLE (chunk_id uuid, page_id uuid, heading_path text, body text, lang text, score double precision,
               matched double precision, corrected text)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  v_tenant uuid := michi_current_tenant();
  v_extra text;
  v_langs text[];
  v_tqs tsquery[];
  v_lex text[];
  v_filter tsquery;
  v_pairs tsquery;
  v_ids uuid[];
BEGIN
  IF v_tenant IS NULL THEN
    RETURN;
  END IF;
  -- Query words the tenant's pages never use are corrected to the most similar word they do use (at most 12
  -- words, so a pasted paragraph cannot turn into hundreds of vocabulary lookups).
  SELECT coalesce(string_agg(f.word, ' '), '') INTO v_extra
  FROM (
    SELECT DISTINCT w FROM regexp_split_to_table(michi_search_fold(p_words), '[^[:alnum:]]+') AS w
    WHERE length(w) >= 4 LIMIT 12
  ) qw
  CROSS JOIN LATERAL (
    SELECT k.word FROM knowledge_words k
    WHERE k.tenant_id = v_tenant AND k.word % qw.w
      AND NOT EXISTS (SELECT 1 FROM knowledge_words e WHERE e.tenant_id = v_tenant AND e.word = qw.w)
    ORDER BY similarity(k.word, qw.w) DESC LIMIT 1
  ) f;
  -- Only the languages the tenant's chunks are in: the query parsed without stemming ('und', 'ja') keeps stop
  -- words such as "how" or "my", which would otherwise make the scan read most chunks for nothing.
  SELECT array_agg(l), array_agg(t.tq) INTO v_langs, v_tqs
  FROM unnest(p_langs) AS l
  CROSS JOIN LATERAL (SELECT michi_knowledge_query(l, p_words || ' ' || v_extra) AS tq) t
  WHERE t.tq IS NOT NULL
    AND EXISTS (SELECT 1 FROM knowledge_chunks c WHERE c.tenant_id = v_tenant AND c.lang = l);
  -- The prefilter: every word of every language's parse once (a superset of each language's own query).
  SELECT array_agg(DISTINCT x) INTO v_lex
  FROM unnest(v_langs) AS l, unnest(tsvector_to_array(michi_knowledge_tsv(l, p_words || ' ' || v_extra))) AS x;
  IF v_lex IS NULL THEN
    RETURN;
  END IF;
  v_filter := (SELECT string_agg(quote_literal(x), ' | ') FROM unnest(v_lex) AS x)::tsquery;
  -- The tenant is compared as text in the two scans below so that the GIN index on tsv is their only index:
  -- the embedded database never runs ANALYZE (no autovacuum in PGlite), and without statistics the planner
  -- preferred reading every chunk of the tenant through its btree and matching each one.
  -- Ranking is the cost (each match's tsvector read and scored): a common word matches thousands of chunks.
  -- When at least p_limit chunks hold two or more of the query's words, only those are ranked; a chunk with
  -- one of the words is then never among the best p_limit anyway (measured: recall@5 unchanged on logingov).
  IF array_length(v_lex, 1) BETWEEN 2 AND 16 THEN
    v_pairs := (SELECT string_agg(format('(%s & %s)', quote_literal(a.x), quote_literal(b.x)), ' | ')
                FROM unnest(v_lex) WITH ORDINALITY AS a(x, i), unnest(v_lex) WITH ORDINALITY AS b(x, j)
                WHERE a.i < b.j)::tsquery;
    SELECT array_agg(c.id) INTO v_ids FROM knowledge_chunks c
    WHERE c.tsv @@ v_pairs AND c.tenant_id::text = v_tenant::text;
  END IF;
  IF coalesce(array_length(v_ids, 1), 0) < p_limit THEN
    SELECT array_agg(c.id) INTO v_ids FROM knowledge_chunks c
    WHERE c.tsv @@ v_filter AND c.tenant_id::text = v_tenant::text;
  END IF;
  RETURN QUERY
    WITH hits AS MATERIALIZED (
      SELECT c.id, c.page_id, c.heading_path, c.text, c.lang, c.tsv, q.tq,
             ts_rank_cd(c.tsv, q.tq, 1)::float8 AS score
      FROM knowledge_chunks c JOIN unnest(v_langs, v_tqs) AS q(lang, tq) ON q.lang = c.lang
      WHERE c.id = ANY(v_ids) AND c.tsv @@ q.tq
      ORDER BY 8 DESC LIMIT p_limit
    )
    SELECT h.id, h.page_id, h.heading_path, h.text, h.lang, h.score,
           (SELECT least(1, count(*) FILTER (WHERE h.tsv @@ quote_literal(x)::tsquery)::float8
                            / greatest(coalesce(array_length(tsvector_to_array(michi_knowledge_tsv(h.lang, p_words)), 1), 0), 1))
            FROM unnest(tsvector_to_array(michi_knowledge_tsv(h.lang, p_words || ' ' || v_extra))) AS x),
           v_extra
    FROM hits h ORDER BY h.score DESC;
END $$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION michi_knowledge_text_hits(text, text[], integer) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION michi_knowledge_text_hits(text, text[], integer) TO michi_tenant;
