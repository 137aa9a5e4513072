-- Ranking on blind questions, second pass (issue 40). Three changes to 0042's section BM25, each measured on
-- the dev half of bench/knowledge/blind (bench/README.md, "second pass"):
--
-- 1. The heading path as a field of its own (BM25F): head_tsv, the section's heading path (the page's title
--    first), indexed with GIN. Besides 0042's candidates, the few sections (5) whose heading holds two of the
--    question's words (or its one word), shortest headings first, are ranked too: "what is cloud.gov?" has one
--    meaningful word, on every page, and the page titled with it never reached the 40 candidates read by body.
-- 2. A heading match counts by the heading's length, as BM25 counts the body: a query word in a short heading
--    weighs up to 3.4, in a long heading path well under 2 (0042 gave every heading word 2).
-- 3. A rare word finds its sections alone: a query word in at most a tenth of the tenant's chunks (and at
--    most 20), that every stemmer of the tenant's languages leaves the same (names, codes: "Medicare",
--    "SAM.gov"), adds the chunks holding it (at most 40) even when they hold no other word of the question.
--    Without the agreement condition, a word of the question parsed as French matched French pages by
--    accident; without the tenth, every word of a small site was rare and 0040's "minimum should match" (a
--    footer repeating one word left out) stopped holding.
ALTER TABLE knowledge_chunks ADD COLUMN IF NOT EXISTS head_tsv tsvector
  GENERATED ALWAYS AS (michi_knowledge_tsv("lang", "heading_path")) STORED;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS knowledge_chunks_head_tsv_idx ON knowledge_chunks USING gin (head_tsv);
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
  v_scores float8[];
  v_n bigint;
  v_rare tsquery;
  v_rare_ids uuid[];
  v_size bigint;
  v_agree text[];
  v_dfx text[];
  v_dfn float8[];
  -- Twice the five passages an answer shows (src/lib/knowledge/search.ts), or p_limit if smaller.
  v_enough integer := least(p_limit, 10);
  -- The candidates BM25 re-orders: 80 cost three times 0040's p95 at 10,000 chunks for no blind-set gain.
  v_cand integer := p_limit;
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
      ORDER BY 2 DESC, 1 LIMIT v_cand
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
      ORDER BY 2 DESC, 1 LIMIT v_cand
    ) t;
  END IF;
  -- Each query word's document frequency, counted up to 100 chunks (beyond that a word is common, and counting
  -- on would read every chunk holding it): read once, for the rare words here and for BM25 below.
  SELECT array_agg(x), array_agg((SELECT count(*) FROM (SELECT 1 FROM knowledge_chunks k
                                                       WHERE k.tsv @@ quote_literal(x)::tsquery
                                                         AND k.tenant_id::text = v_tenant::text
                                                       LIMIT 100) s)::float8)
    INTO v_dfx, v_dfn
  FROM unnest(v_lex) AS x;
  -- A rare word of the question finds its chunks even when they hold none of its other words (see the header):
  -- first the words every language's parse agrees on, then their document frequency, read only for those.
  WITH parses AS MATERIALIZED (
    SELECT tsvector_to_array(michi_knowledge_tsv(l, p_words || ' ' || v_extra)) AS a FROM unnest(v_langs) AS l
    WHERE l <> 'und'
  )
  SELECT array_agg(x) INTO v_agree FROM unnest(v_lex) AS x
  WHERE NOT EXISTS (SELECT 1 FROM parses WHERE NOT x = ANY (parses.a));
  IF EXISTS (SELECT 1 FROM unnest(v_dfx, v_dfn) AS d(x, n) WHERE d.x = ANY (v_agree) AND d.n <= 20) THEN
    -- The tenant's chunks, counted to 200: a word is rare in at most a tenth of them (and 20 at most).
    SELECT count(*) INTO v_size FROM (SELECT 1 FROM knowledge_chunks k WHERE k.tenant_id = v_tenant LIMIT 200) s;
    SELECT string_agg(quote_literal(d.x), ' | ')::tsquery INTO v_rare
    FROM unnest(v_dfx, v_dfn) AS d(x, n)
    WHERE d.x = ANY (v_agree) AND d.n <= least(20, v_size / 10);
  END IF;
  IF v_rare IS NOT NULL THEN
    SELECT array_agg(c.id) INTO v_rare_ids
    FROM (SELECT c.id FROM knowledge_chunks c
          WHERE c.tsv @@ v_rare AND c.tenant_id::text = v_tenant::text
            AND c.tsv @@ v_tqs[array_position(v_langs, c.lang)]
            AND NOT (c.id = ANY (coalesce(v_ids, '{}')))
          LIMIT 40) c;
    v_ids := coalesce(v_ids, '{}') || coalesce(v_rare_ids, '{}');
  END IF;
  -- Sections whose heading path (the page's title first) holds the question's words, shortest heads first.
  SELECT coalesce(v_ids, '{}') || coalesce(array_agg(h.id), '{}') INTO v_ids
  FROM (SELECT c.id FROM knowledge_chunks c
        WHERE c.head_tsv @@ coalesce(v_pairs, v_filter) AND c.tenant_id::text = v_tenant::text
          AND c.head_tsv @@ v_tqs[array_position(v_langs, c.lang)]
          AND NOT (c.id = ANY (coalesce(v_ids, '{}')))
        ORDER BY ts_rank(c.head_tsv, v_tqs[array_position(v_langs, c.lang)], 2) DESC, c.id
        LIMIT 5) h;
  IF v_ids IS NULL OR cardinality(v_ids) = 0 THEN
    RETURN;
  END IF;
  RETURN QUERY
    WITH lq AS MATERIALIZED (
      SELECT l, tsvector_to_array(michi_knowledge_tsv(l, p_words || ' ' || v_extra)) AS terms FROM unnest(v_langs) AS l
    ),
    cand AS MATERIALIZED (
      SELECT c.id, c.page_id, c.heading_path, c.text, c.lang, c.tsv, h.i, lq.terms,
             tsvector_to_array(michi_knowledge_tsv(c.lang, coalesce(p.title, '') || ' ' || c.heading_path)) AS head,
             greatest(length(c.head_tsv), 1)::float8 AS hl,
             length(c.tsv)::float8 AS dl
      FROM unnest(v_ids) WITH ORDINALITY AS h(id, i)
      CROSS JOIN LATERAL (SELECT * FROM knowledge_chunks y WHERE y.id = h.id AND y.tenant_id::text = v_tenant::text) c
      LEFT JOIN knowledge_pages p ON p.id = c.page_id
      JOIN lq ON lq.l = c.lang
    ),
    df AS MATERIALIZED (SELECT d.x AS lexeme, d.n FROM unnest(v_dfx, v_dfn) AS d(x, n)),
    avgdl AS (SELECT greatest(avg(dl), 1) AS v, greatest(avg(hl), 1) AS h FROM cand),
    scored AS (
      SELECT cand.id, coalesce(sum(
               ln(1 + 1000 / (df.n + 0.5))
               * ((tf.n * 2.2) / (tf.n + 1.2 * (0.25 + 0.75 * cand.dl / avgdl.v))
                  + CASE WHEN df.lexeme = ANY (cand.head) THEN (4.4 / (1 + 1.2 * (0.25 + 0.75 * cand.hl / avgdl.h))) ELSE 0 END)
             ), 0)::float8 AS score,
             (count(*)::float8 / greatest(coalesce(array_length(cand.terms, 1), 0), 1)) AS matched
      FROM cand CROSS JOIN avgdl
      LEFT JOIN LATERAL (
        SELECT u.lexeme, coalesce(array_length(u.positions, 1), 1)::float8 AS n
        FROM unnest(cand.tsv) AS u WHERE u.lexeme = ANY (cand.terms)
      ) tf ON true
      LEFT JOIN df ON df.lexeme = tf.lexeme
      GROUP BY cand.id, cand.terms, cand.hl
    )
    SELECT cand.id, cand.page_id, cand.heading_path, cand.text, cand.lang, s.score, least(1, s.matched), v_extra
    FROM cand JOIN scored s ON s.id = cand.id
    ORDER BY s.score DESC, cand.i
    LIMIT p_limit;
END $$;
--> statement-breakpoint
-- CREATE OR REPLACE resets the function's settings: the generic plan, as set in 0030.
ALTER FUNCTION michi_knowledge_text_hits(text, text[], integer) SET plan_cache_mode = force_generic_plan;
--> statement-breakpoint
REVOKE ALL ON FUNCTION michi_knowledge_text_hits(text, text[], integer) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION michi_knowledge_text_hits(text, text[], integer) TO michi_tenant;
