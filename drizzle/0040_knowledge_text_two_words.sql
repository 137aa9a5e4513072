-- Full text that reads fewer chunks (issue 27: p95 at 10,000 chunks on PGlite). Timed piece by piece on the
-- bench's index, nearly all of the statement was reading and ranking the chunks that share one word with the
-- question: when fewer than 40 chunks held two of its words, every chunk with any one of them was ranked
-- (270 to 730 for the bench's questions, about 20 µs each in WebAssembly), to fill 40 candidates of which an
-- answer shows five.
--
-- Now the chunks with two or more of the question's words are ranked alone as soon as there are 10 of them
-- (twice the five passages an answer shows), as "minimum should match" does in Lucene and Elasticsearch; a
-- chunk with a single one of the words only comes in when fewer share two. On the logingov questions
-- (bench/knowledge/recall.ts) this also ranks better: recall@5 0.868 against 0.824 with the bar at 40, 0.838
-- at 20; turned-away unanswerable questions unchanged (bench/README.md, sixth pass). Each scan now also ranks
-- as it reads, so a chunk is read once, and ties are broken by id so the order is the same on every run.
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
  v_scores float8[];
  v_n bigint;
  -- Twice the five passages an answer shows (src/lib/knowledge/search.ts), or p_limit if smaller.
  v_enough integer := least(p_limit, 10);
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
  -- Each scan ranks as it reads (each chunk with its own language's query) and keeps the best p_limit ids and
  -- scores: reading a chunk is the cost, so none is read twice.
  -- Chunks that hold two or more of the query's words are ranked alone when there are at least v_enough of
  -- them ("minimum should match"); only otherwise are chunks with one of the words ranked too.
  IF array_length(v_lex, 1) BETWEEN 2 AND 16 THEN
    v_pairs := (SELECT string_agg(format('(%s & %s)', quote_literal(a.x), quote_literal(b.x)), ' | ')
                FROM unnest(v_lex) WITH ORDINALITY AS a(x, i), unnest(v_lex) WITH ORDINALITY AS b(x, j)
                WHERE a.i < b.j)::tsquery;
    SELECT array_agg(t.id ORDER BY t.score DESC, t.id), array_agg(t.score ORDER BY t.score DESC, t.id), max(t.n)
      INTO v_ids, v_scores, v_n
    FROM (
      SELECT c.id, ts_rank_cd(c.tsv, v_tqs[array_position(v_langs, c.lang)], 1)::float8 AS score,
             count(*) OVER () AS n
      FROM knowledge_chunks c
      WHERE c.tsv @@ v_pairs AND c.tenant_id::text = v_tenant::text
        AND c.tsv @@ v_tqs[array_position(v_langs, c.lang)]
      ORDER BY 2 DESC, 1 LIMIT p_limit
    ) t;
  END IF;
  IF coalesce(v_n, 0) < v_enough THEN
    SELECT array_agg(t.id ORDER BY t.score DESC, t.id), array_agg(t.score ORDER BY t.score DESC, t.id)
      INTO v_ids, v_scores
    FROM (
      SELECT c.id, ts_rank_cd(c.tsv, v_tqs[array_position(v_langs, c.lang)], 1)::float8 AS score
      FROM knowledge_chunks c
      WHERE c.tsv @@ v_filter AND c.tenant_id::text = v_tenant::text
        AND c.tsv @@ v_tqs[array_position(v_langs, c.lang)]
      ORDER BY 2 DESC, 1 LIMIT p_limit
    ) t;
  END IF;
  RETURN QUERY
    SELECT c.id, c.page_id, c.heading_path, c.text, c.lang, h.score,
           (SELECT least(1, count(*) FILTER (WHERE c.tsv @@ quote_literal(x)::tsquery)::float8
                            / greatest(coalesce(array_length(tsvector_to_array(michi_knowledge_tsv(c.lang, p_words)), 1), 0), 1))
            FROM unnest(tsvector_to_array(michi_knowledge_tsv(c.lang, p_words || ' ' || v_extra))) AS x),
           v_extra
    FROM unnest(v_ids, v_scores) WITH ORDINALITY AS h(id, score, i)
    CROSS JOIN LATERAL (SELECT * FROM knowledge_chunks y WHERE y.id = h.id AND y.tenant_id::text = v_tenant::text) c
    ORDER BY h.i;
END $$;
--> statement-breakpoint
-- CREATE OR REPLACE resets the function's settings: the generic plan, as set in 0030.
ALTER FUNCTION michi_knowledge_text_hits(text, text[], integer) SET plan_cache_mode = force_generic_plan;
--> statement-breakpoint
REVOKE ALL ON FUNCTION michi_knowledge_text_hits(text, text[], integer) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION michi_knowledge_text_hits(text, text[], integer) TO michi_tenant;
