-- Vector search that no longer reads the wide chunk rows (issue 27: hybrid p95 at 10,000 chunks). Until now each query
-- computed the Hamming distance of every chunk's sign bits and sorted them all, on the wide chunk rows (text,
-- words, tsvector, vector), and the embed job rewrote those wide rows: on PGlite, which never vacuums, every
-- re-embed left a dead copy of each chunk that the full-text scans then visited too.
--
-- Vectors move to a table of their own: per chunk the float32 bytes and a 256-bit SimHash code (the signs of
-- fixed random projections, src/lib/knowledge/vectors.ts). A query sorts the codes by Hamming distance on
-- these rows, without the chunks' text, words and tsvector, and reads only the nearest ones' vectors for the
-- cosine rerank in the application. Vectors of 512 dimensions and more (2 KB and up) are stored out of line.
--
-- Tried and not kept: bucket keys (16 bands of 10 code bits, multi-probe, GIN-indexed) to avoid sorting every
-- code. At 10,000 chunks the buckets missed most of the exact nearest neighbours (recall@10 0.25 against
-- 0.67 for the full sort of the codes; bench/README.md), because retrieval neighbours are far apart in angle
-- (cosine 0.3-0.6) and buckets only catch close ones.
CREATE TABLE IF NOT EXISTS "knowledge_vectors" (
	"chunk_id" uuid PRIMARY KEY REFERENCES "knowledge_chunks"("id") ON DELETE cascade,
	"tenant_id" uuid NOT NULL REFERENCES "tenants"("id") ON DELETE cascade,
	-- The model id and dimension that made the vector: only the current ones are ever compared.
	"model" text NOT NULL,
	"dim" integer NOT NULL,
	"vector" bytea NOT NULL,
	-- NULL until the embed job has coded a vector carried over from knowledge_chunks (no new embedding call).
	"code" bit varying
);
--> statement-breakpoint
-- Uncompressed (float32 bytes do not compress): out of line when a row passes 2 KB, never tried for compression.
ALTER TABLE "knowledge_vectors" ALTER COLUMN "vector" SET STORAGE EXTERNAL;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "knowledge_vectors_tenant_idx" ON "knowledge_vectors" ("tenant_id", "model", "dim");
--> statement-breakpoint
INSERT INTO "knowledge_vectors" ("chunk_id", "tenant_id", "model", "dim", "vector")
  SELECT "id", "tenant_id", "embedding_model", "embedding_dim", "embedding" FROM "knowledge_chunks"
  WHERE "embedding" IS NOT NULL AND "embedding_model" IS NOT NULL AND "embedding_dim" IS NOT NULL
ON CONFLICT DO NOTHING;
--> statement-breakpoint
DROP INDEX IF EXISTS "knowledge_chunks_embed_todo_idx";
--> statement-breakpoint
ALTER TABLE "knowledge_chunks" DROP COLUMN IF EXISTS "embedding", DROP COLUMN IF EXISTS "embedding_bits",
  DROP COLUMN IF EXISTS "embedding_model", DROP COLUMN IF EXISTS "embedding_dim";
--> statement-breakpoint
-- The `p_limit` chunks of the entered tenant whose codes are nearest `p_code`, with their vectors, text and
-- page. SECURITY DEFINER and the tenant filtered explicitly as in michi_knowledge_text_hits (0025): the tenant
-- is the one the calling transaction entered, never a parameter; no tenant entered, no rows. Under row-level
-- security the planner, without statistics (PGlite never analyzes), combined each lookup of the chosen rows
-- by id with a bitmap of the tenant's whole index (10,000+ entries, once per row in a nested loop). Here the
-- codes are read through the (tenant, model, dim) index and the chosen rows by primary key alone, the tenant
-- checked on each (compared as text, so that it cannot be used as an index condition).
CREATE OR REPLACE FUNCTION michi_knowledge_vector_hits(p_model text, p_dim integer, p_code bit varying,
                                                       p_limit integer)
RETURNS TABLE (chunk_id uuid, page_id uuid, heading_path text, body text, lang text, distance integer,
               vector bytea)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  v_tenant uuid := michi_current_tenant();
  v_ids uuid[];
  v_dist integer[];
BEGIN
  IF v_tenant IS NULL THEN
    RETURN;
  END IF;
  SELECT array_agg(n.id ORDER BY n.d, n.id), array_agg(n.d ORDER BY n.d, n.id) INTO v_ids, v_dist
  FROM (
    SELECT v.chunk_id AS id, bit_count(v.code # p_code)::integer AS d FROM knowledge_vectors v
    WHERE v.tenant_id = v_tenant AND v.model = p_model AND v.dim = p_dim AND length(v.code) = length(p_code)
    ORDER BY 2, 1 LIMIT p_limit
  ) n;
  RETURN QUERY
    SELECT c.id, c.page_id, c.heading_path, c.text, c.lang, h.d, v.vector
    FROM unnest(v_ids, v_dist) WITH ORDINALITY AS h(id, d, i)
    JOIN knowledge_chunks c ON c.id = h.id AND c.tenant_id::text = v_tenant::text
    JOIN knowledge_vectors v ON v.chunk_id = h.id AND v.tenant_id::text = v_tenant::text
    ORDER BY h.i;
END $$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION michi_knowledge_vector_hits(text, integer, bit varying, integer) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION michi_knowledge_vector_hits(text, integer, bit varying, integer) TO michi_tenant;
--> statement-breakpoint
-- Full text (0025) with less work per match: at 10,000 chunks a common word matches hundreds of them, and the
-- ranking of those was most of a search (bench/README.md).
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
  v_pairs_found integer := 0;
  v_scan tsquery;
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
    SELECT count(*) INTO v_pairs_found FROM knowledge_chunks c
    WHERE c.tsv @@ v_pairs AND c.tenant_id::text = v_tenant::text;
  END IF;
  v_scan := CASE WHEN v_pairs_found >= p_limit THEN v_pairs ELSE v_filter END;
  -- The matches are found and ranked in one pass that carries only their id and score (the sort used to carry
  -- every match's text and tsvector, and the matches were found once for their ids and read again to rank);
  -- the p_limit best are read afterwards by primary key.
  RETURN QUERY
    WITH ql AS MATERIALIZED (
      -- The query's words per language, parsed once rather than once per hit, for `matched`.
      SELECT q.lang, q.tq, tsvector_to_array(michi_knowledge_tsv(q.lang, p_words || ' ' || v_extra)) AS lex,
             greatest(coalesce(array_length(tsvector_to_array(michi_knowledge_tsv(q.lang, p_words)), 1), 0), 1) AS n
      FROM unnest(v_langs, v_tqs) AS q(lang, tq)
    ),
    ranked AS MATERIALIZED (
      SELECT c.id, ts_rank_cd(c.tsv, ql.tq, 1)::float8 AS score
      FROM knowledge_chunks c JOIN ql ON ql.lang = c.lang
      WHERE c.tsv @@ v_scan AND c.tenant_id::text = v_tenant::text AND c.tsv @@ ql.tq
      ORDER BY 2 DESC, 1 LIMIT p_limit
    ),
    hits AS MATERIALIZED (
      SELECT c.id, c.page_id, c.heading_path, c.text, c.lang, c.tsv
      FROM knowledge_chunks c
      WHERE c.id = ANY((SELECT array_agg(r.id) FROM ranked r)::uuid[]) AND c.tenant_id::text = v_tenant::text
    )
    SELECT h.id, h.page_id, h.heading_path, h.text, h.lang, r.score,
           (SELECT least(1, count(*) FILTER (WHERE h.tsv @@ quote_literal(x)::tsquery)::float8 / ql.n)
            FROM unnest(ql.lex) AS x),
           v_extra
    FROM ranked r JOIN hits h ON h.id = r.id JOIN ql ON ql.lang = h.lang
    ORDER BY r.score DESC, r.id;
END $$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION michi_knowledge_text_hits(text, text[], integer) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION michi_knowledge_text_hits(text, text[], integer) TO michi_tenant;
