-- Transcript search by substring, accent- and case-blind: "abris" finds "abrís", "munchen" finds "München",
-- and a few characters of Japanese (which has no spaces for a word search to split on) find their sentence.
-- pg_trgm and unaccent ship with Postgres (contrib) and with PGlite (loaded by src/lib/db/pglite-worker.mjs);
-- both are trusted extensions, so a database owner without superuser may create them.
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;
--> statement-breakpoint
CREATE EXTENSION IF NOT EXISTS unaccent WITH SCHEMA public;
--> statement-breakpoint
-- unaccent() is only STABLE (its dictionary could change), so an index cannot use it directly. This wrapper
-- names the dictionary and schema explicitly, which makes its result fixed and lets us declare it IMMUTABLE.
-- The query side calls the very same function, so the index expression and the search expression match.
CREATE OR REPLACE FUNCTION michi_search_fold(value text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  AS $$ SELECT lower(public.unaccent('public.unaccent'::regdictionary, value)) $$;
--> statement-breakpoint
-- The folded text is stored beside the content (computed by Postgres on every insert), for two reasons:
-- folding 100,000 messages on every search costs about a second, and tenant queries run under row-level
-- security, where Postgres only lets leakproof operators drive an index and LIKE is not one. So a tenant's
-- search reads this precomputed column; the trigram index serves queries without RLS (the operator's tools,
-- pg_trgm's similarity() for other features) and any planner that may use it.
ALTER TABLE "messages" ADD COLUMN IF NOT EXISTS "content_search" text
  GENERATED ALWAYS AS (michi_search_fold("content")) STORED;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "messages_content_trgm_idx" ON "messages"
  USING gin ("content_search" public.gin_trgm_ops);
--> statement-breakpoint
-- The word index of 0002 served the old word search only; every message insert would keep paying for it.
DROP INDEX IF EXISTS "messages_content_fts_idx";
--> statement-breakpoint
-- The Tools list shows each pack's last test from the Test panel (what happened, and when).
ALTER TABLE "pack_configs" ADD COLUMN IF NOT EXISTS "last_test_outcome" text;
--> statement-breakpoint
ALTER TABLE "pack_configs" ADD COLUMN IF NOT EXISTS "last_test_at" timestamp with time zone;
