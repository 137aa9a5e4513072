-- Vector search without sorting every code in the database (issue 27: hybrid p95 at 10,000 chunks on PGlite).
-- Until now each query computed bit_count(code # query) for every code of the business and sorted them in
-- SQL: on PGlite, in WebAssembly, that alone was about 20 ms at 10,000 chunks, and the 200 candidates it
-- returned for the cosine rerank another 8.
--
-- Now each instance keeps the business's codes in memory (src/lib/knowledge/sketch-cache.ts): the Hamming
-- scan of 10,000 codes takes about a millisecond in JavaScript, and only the nearest few are read from here.
-- That allows a longer code: 1024 bits (a "sketch", the signs of 1024 fixed random projections, stored as 128
-- bytes) instead of 256. Measured on the bench's vectors, recall of the exact 10 nearest: 1024 bits with 64
-- candidates 0.93, where 256 bits needed 200 candidates for 0.77 (bench/README.md).
--
-- The cache stays current by `seq`: every insert or update of a row takes the next value, and a statement
-- trigger makes one business's writers take turns (an advisory lock held to commit, the same way as
-- live_events in 0027), so seq order is commit order within a business. A reader that holds everything up
-- to seq N and sees N as the newest can never miss a row that commits later with a smaller seq; it loads
-- only the rows after N. A deleted row needs no signal: the read by id no longer finds it, and the cache
-- forgets it then.
CREATE SEQUENCE IF NOT EXISTS "knowledge_vectors_seq";
--> statement-breakpoint
GRANT USAGE ON SEQUENCE "knowledge_vectors_seq" TO michi_tenant;
--> statement-breakpoint
ALTER TABLE "knowledge_vectors" ADD COLUMN IF NOT EXISTS "seq" bigint NOT NULL DEFAULT nextval('knowledge_vectors_seq');
--> statement-breakpoint
-- NULL until the embed job has sketched a vector stored before this migration (from its bytes, no model call).
ALTER TABLE "knowledge_vectors" ADD COLUMN IF NOT EXISTS "sketch" bytea;
--> statement-breakpoint
DROP FUNCTION IF EXISTS michi_knowledge_vector_hits(text, integer, bit varying, integer);
--> statement-breakpoint
ALTER TABLE "knowledge_vectors" DROP COLUMN IF EXISTS "code";
--> statement-breakpoint
DROP INDEX IF EXISTS "knowledge_vectors_tenant_idx";
--> statement-breakpoint
-- The cache's loads ("this business's sketches of this model after seq N") and the newest seq, by index.
CREATE INDEX IF NOT EXISTS "knowledge_vectors_seq_idx" ON "knowledge_vectors" ("tenant_id", "model", "dim", "seq");
--> statement-breakpoint
CREATE OR REPLACE FUNCTION michi_knowledge_vectors_take_turns() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(4242039, hashtext(coalesce(michi_current_tenant()::text, '')));
  RETURN NULL;
END $$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "knowledge_vectors_take_turns" ON "knowledge_vectors";
--> statement-breakpoint
CREATE TRIGGER "knowledge_vectors_take_turns" BEFORE INSERT OR UPDATE ON "knowledge_vectors"
  FOR EACH STATEMENT EXECUTE FUNCTION michi_knowledge_vectors_take_turns();
--> statement-breakpoint
-- An update (a new vector for a chunk, a sketch added) is news to the caches too: it takes the next seq.
CREATE OR REPLACE FUNCTION michi_knowledge_vectors_next_seq() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.seq := nextval('knowledge_vectors_seq');
  RETURN NEW;
END $$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "knowledge_vectors_next_seq" ON "knowledge_vectors";
--> statement-breakpoint
CREATE TRIGGER "knowledge_vectors_next_seq" BEFORE UPDATE ON "knowledge_vectors"
  FOR EACH ROW EXECUTE FUNCTION michi_knowledge_vectors_next_seq();
--> statement-breakpoint
-- The chosen chunks by id, with their vectors (for the cosine rerank), text and page, in the order given, and
-- the business's newest seq of the model among sketched rows (the same in every row), so one statement both
-- answers and tells the cache whether it is behind. SECURITY DEFINER and the tenant compared as in michi_knowledge_text_hits (0025):
-- the tenant is the one the calling transaction entered, never a parameter; no tenant entered, no rows. Each
-- id is looked up by primary key (LATERAL): under row-level security, without statistics (PGlite never
-- analyzes), the planner otherwise scanned all of the business's chunks to join 64 of them. A chunk whose page
-- is not indexed just now (skipped, failed first time) comes back with indexed = false: not a candidate, but
-- the cache keeps its sketch, since the page may be indexed again with the very same chunks and vectors.
CREATE OR REPLACE FUNCTION michi_knowledge_vectors_by_id(p_model text, p_dim integer, p_ids uuid[])
RETURNS TABLE (chunk_id uuid, page_id uuid, url text, title text, heading_path text, body text, lang text,
               vector bytea, indexed boolean, head bigint)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  v_tenant uuid := michi_current_tenant();
  v_head bigint;
BEGIN
  IF v_tenant IS NULL THEN
    RETURN;
  END IF;
  -- Only rows with a sketch count: one still waiting for its sketch is nothing a cache could load yet.
  SELECT max(x.seq) INTO v_head FROM knowledge_vectors x
    WHERE x.tenant_id = v_tenant AND x.model = p_model AND x.dim = p_dim AND x.sketch IS NOT NULL;
  RETURN QUERY
    SELECT c.id, c.page_id, p.url, p.title, c.heading_path, c.text, c.lang, v.vector,
           coalesce(p.status = 'indexed', false), v_head
    FROM unnest(p_ids) WITH ORDINALITY AS h(id, i)
    CROSS JOIN LATERAL (SELECT * FROM knowledge_vectors x WHERE x.chunk_id = h.id) v
    CROSS JOIN LATERAL (SELECT * FROM knowledge_chunks y WHERE y.id = h.id) c
    LEFT JOIN LATERAL (SELECT * FROM knowledge_pages z WHERE z.id = c.page_id
                         AND z.tenant_id::text = v_tenant::text) p ON true
    WHERE v.tenant_id::text = v_tenant::text AND c.tenant_id::text = v_tenant::text
      AND v.model = p_model AND v.dim = p_dim
    ORDER BY h.i;
  IF NOT FOUND THEN
    -- Nothing chosen was found (an empty or wholly outdated cache): the head alone, with no chunk.
    RETURN QUERY SELECT NULL::uuid, NULL::uuid, NULL::text, NULL::text, NULL::text, NULL::text, NULL::text,
      NULL::bytea, false, v_head;
  END IF;
END $$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION michi_knowledge_vectors_by_id(text, integer, uuid[]) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION michi_knowledge_vectors_by_id(text, integer, uuid[]) TO michi_tenant;
