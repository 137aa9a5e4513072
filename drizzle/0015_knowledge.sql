-- The business's own knowledge: its website (crawled), its documents (uploaded) and answers it wrote itself,
-- cut into chunks that the search_knowledge pack searches. Every table has tenant_id, so
-- michi_secure_tenant_tables() (run by the migrator after this file) puts each under row-level security.
--
-- The live index is never emptied by a failed sync: a page's chunks are replaced only in the transaction that
-- stores its new, fully extracted version, and a page is removed only after two consecutive 404/410 answers.
-- A sync that dies half-way leaves every page it did not reach exactly as it was.

-- Text search configuration per language of the platform (src/shared/languages.ts). Japanese has no spaces:
-- its words are split by the application (searchText) before they reach the 'simple' configuration.
CREATE OR REPLACE FUNCTION michi_knowledge_config(lang text) RETURNS regconfig
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT (CASE lang
    WHEN 'en' THEN 'pg_catalog.english'
    WHEN 'es' THEN 'pg_catalog.spanish'
    WHEN 'fr' THEN 'pg_catalog.french'
    WHEN 'de' THEN 'pg_catalog.german'
    ELSE 'pg_catalog.simple' END)::regconfig $$;
--> statement-breakpoint
-- Accent folding before stemming, so "devolucion" and "devolución", "regles" and "règles" meet.
CREATE OR REPLACE FUNCTION michi_knowledge_tsv(lang text, value text) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT to_tsvector(michi_knowledge_config(lang), michi_search_fold(coalesce(value, ''))) $$;
--> statement-breakpoint
-- array_to_string is only STABLE in general (element types may print by settings); for text[] it is fixed.
CREATE OR REPLACE FUNCTION michi_knowledge_join(value text[]) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT array_to_string(value, ' ') $$;
--> statement-breakpoint
-- A visitor's question is not a boolean query: any of its words may match, and ts_rank_cd orders the chunks
-- by how many and how close. plainto_tsquery drops stop words and stems; its ANDs become ORs.
CREATE OR REPLACE FUNCTION michi_knowledge_query(lang text, value text) RETURNS tsquery
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT nullif(replace(plainto_tsquery(michi_knowledge_config(lang), michi_search_fold(coalesce(value, '')))::text,
    ' & ', ' | '), '')::tsquery $$;
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "knowledge_sources" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL REFERENCES "tenants"("id") ON DELETE cascade,
	-- website (crawled from start_url or sitemap_url) or document (one uploaded file).
	"kind" text NOT NULL,
	"title" text DEFAULT '' NOT NULL,
	"start_url" text,
	"sitemap_url" text,
	"include_patterns" text[] DEFAULT '{}'::text[] NOT NULL,
	"exclude_patterns" text[] DEFAULT '{}'::text[] NOT NULL,
	"page_cap" integer DEFAULT 500 NOT NULL,
	-- off, daily or weekly; next_sync_at is when the scheduler enqueues the next one.
	"schedule" text DEFAULT 'off' NOT NULL,
	"next_sync_at" timestamp with time zone,
	-- idle, queued, syncing; the run in progress (or last run) and its counters.
	"sync_state" text DEFAULT 'idle' NOT NULL,
	"run_id" uuid,
	"run_started_at" timestamp with time zone,
	"run_queued" integer DEFAULT 0 NOT NULL,
	"run_done" integer DEFAULT 0 NOT NULL,
	-- Pages the run found but left out because the source's page cap was reached (shown, never silent).
	"run_over_cap" integer DEFAULT 0 NOT NULL,
	-- robots.txt as fetched at the start of the run; each page job checks its URL against it.
	"robots_txt" text,
	"last_sync_at" timestamp with time zone,
	"last_sync_error" text,
	-- Politeness: the next moment a request to this source's host may start (shared by every instance).
	"next_fetch_at" timestamp with time zone DEFAULT now() NOT NULL,
	-- Documents: the uploaded file's name, type and size (the bytes themselves are not kept after extraction).
	"file_name" text,
	"content_type" text,
	"byte_size" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
-- One website source per business: the search_knowledge pack's configuration is that source.
CREATE UNIQUE INDEX IF NOT EXISTS "knowledge_sources_one_website" ON "knowledge_sources" ("tenant_id")
  WHERE "kind" = 'website';
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "knowledge_sources_due_idx" ON "knowledge_sources" ("next_sync_at")
  WHERE "schedule" <> 'off';
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "knowledge_pages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL REFERENCES "tenants"("id") ON DELETE cascade,
	"source_id" uuid NOT NULL REFERENCES "knowledge_sources"("id") ON DELETE cascade,
	"url" text NOT NULL,
	"canonical_url" text,
	"title" text DEFAULT '' NOT NULL,
	"lang" text,
	-- pending, indexed, skipped (reason: robots, noindex, duplicate, too_large, off_domain, excluded,
	-- not_html, empty) or failed (http_status and/or reason).
	"status" text DEFAULT 'pending' NOT NULL,
	"reason" text,
	"http_status" integer,
	"etag" text,
	"last_modified" text,
	"content_hash" text,
	"byte_size" integer DEFAULT 0 NOT NULL,
	-- Consecutive 404/410 answers; the page and its chunks go at two.
	"missing_count" integer DEFAULT 0 NOT NULL,
	-- The business chose "exclude this page": never fetched again, no chunks.
	"excluded" boolean DEFAULT false NOT NULL,
	-- The run that claimed this page (each page is fetched once per run) and the run that finished it.
	"claimed_run" uuid,
	"done_run" uuid,
	"depth" integer DEFAULT 0 NOT NULL,
	"fetched_at" timestamp with time zone,
	"indexed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "knowledge_pages_url" ON "knowledge_pages" ("source_id", "url");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "knowledge_pages_tenant_idx" ON "knowledge_pages" ("tenant_id", "source_id", "status");
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "knowledge_chunks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL REFERENCES "tenants"("id") ON DELETE cascade,
	"source_id" uuid NOT NULL REFERENCES "knowledge_sources"("id") ON DELETE cascade,
	"page_id" uuid NOT NULL REFERENCES "knowledge_pages"("id") ON DELETE cascade,
	"ord" integer NOT NULL,
	"heading_path" text DEFAULT '' NOT NULL,
	"text" text NOT NULL,
	"hash" text NOT NULL,
	"lang" text DEFAULT 'en' NOT NULL,
	-- The words the full-text index sees: the text itself, or for Japanese the text split into words by the
	-- application (searchText), so 'simple' can index it.
	"words" text NOT NULL,
	"tsv" tsvector GENERATED ALWAYS AS (michi_knowledge_tsv("lang", "heading_path" || ' ' || "words")) STORED,
	-- Folded text for substring and trigram matching (typos, a few characters of Japanese).
	"folded" text GENERATED ALWAYS AS (michi_search_fold("heading_path" || ' ' || "text")) STORED,
	-- The embedding as float32 bytes, its sign bits for a Hamming prefilter, and what made it.
	"embedding" bytea,
	"embedding_bits" bit varying,
	"embedding_model" text,
	"embedding_dim" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "knowledge_chunks_page_idx" ON "knowledge_chunks" ("page_id", "ord");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "knowledge_chunks_tenant_idx" ON "knowledge_chunks" ("tenant_id");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "knowledge_chunks_tsv_idx" ON "knowledge_chunks" USING gin ("tsv");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "knowledge_chunks_embed_todo_idx" ON "knowledge_chunks" ("tenant_id", "embedding_model");
--> statement-breakpoint
-- Every distinct folded word of a tenant's chunks: a query word with a typo is corrected against this short
-- list by trigram similarity before the full-text search (pg_trgm's documented text-search integration),
-- instead of comparing it with every chunk's text.
CREATE TABLE IF NOT EXISTS "knowledge_words" (
	"tenant_id" uuid NOT NULL REFERENCES "tenants"("id") ON DELETE cascade,
	"word" text NOT NULL,
	PRIMARY KEY ("tenant_id", "word")
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "knowledge_answers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL REFERENCES "tenants"("id") ON DELETE cascade,
	"questions" text[] NOT NULL,
	"answer" text NOT NULL,
	"lang" text DEFAULT 'en' NOT NULL,
	"tsv" tsvector GENERATED ALWAYS AS (michi_knowledge_tsv("lang", michi_knowledge_join("questions"))) STORED,
	"folded" text GENERATED ALWAYS AS (michi_search_fold(michi_knowledge_join("questions"))) STORED,
	"created_by" uuid REFERENCES "users"("id") ON DELETE set null,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "knowledge_answers_tenant_idx" ON "knowledge_answers" ("tenant_id", "created_at");
