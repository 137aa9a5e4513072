-- Uploaded documents: each upload is a knowledge source of kind 'document' with one page (its text, chunked
-- like a website page). The file's bytes are kept here, under row-level security like every table with a
-- tenant_id, so the extraction job can read them again after a restart; they go with the source (Delete)
-- and with the business (ON DELETE cascade).
CREATE TABLE IF NOT EXISTS "knowledge_files" (
	"source_id" uuid PRIMARY KEY NOT NULL REFERENCES "knowledge_sources"("id") ON DELETE cascade,
	"tenant_id" uuid NOT NULL REFERENCES "tenants"("id") ON DELETE cascade,
	"bytes" bytea NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "knowledge_files_tenant_idx" ON "knowledge_files" ("tenant_id");
--> statement-breakpoint
-- The operator's limit on a business's uploaded bytes (100 MB unless the operator changes it).
ALTER TABLE "tenants" ADD COLUMN IF NOT EXISTS "knowledge_upload_quota" integer DEFAULT 104857600 NOT NULL;
--> statement-breakpoint
-- The operator's limit on a business's website page cap: the business chooses its own cap up to this.
ALTER TABLE "tenants" ADD COLUMN IF NOT EXISTS "knowledge_page_cap" integer DEFAULT 5000 NOT NULL;
