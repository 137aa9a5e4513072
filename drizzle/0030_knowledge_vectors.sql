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
-- 0.67 for the nearest 64 codes of the full sort, on the bench's vectors; bench/README.md): retrieval
-- neighbours are far apart in angle (cosine 0.3-0.6) and buckets only catch close ones.
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
-- Full text (0025): the function's statements planned once per connection instead of at every call. With the
-- default setting a plpgsql statement is planned again with each call's values until the plan cache settles,
-- and some never did: measured on PGlite at 10,000 chunks, interleaved with the default on the same database,
-- 9-11% less CPU per search (force_custom_plan, the other way, cost 30% more). The plan does not depend on the
-- values here: the GIN index is the scans' only index (0025), so a generic plan is the plan they would get.
ALTER FUNCTION michi_knowledge_text_hits(text, text[], integer) SET plan_cache_mode = force_generic_plan;
