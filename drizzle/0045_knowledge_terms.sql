-- The abbreviations a business's own pages define ("Personal Identity Verification (PIV)"), learned when a
-- chunk is indexed (src/lib/knowledge/abbreviations.ts): a search adds the other form to a query, so a visitor
-- who types "piv" meets the section that spells it out, without an embeddings model. Under row-level security
-- like every table with a tenant_id (michi_secure_tenant_tables, run after every migration). Like
-- knowledge_words, a pair stays when the page that taught it changes: it only ever widens a query.
CREATE TABLE IF NOT EXISTS "knowledge_terms" (
	"tenant_id" uuid NOT NULL REFERENCES "tenants"("id") ON DELETE cascade,
	"short" text NOT NULL,
	"long" text NOT NULL,
	PRIMARY KEY ("tenant_id", "short", "long")
);
