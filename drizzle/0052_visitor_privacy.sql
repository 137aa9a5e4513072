-- One visitor's data on request (issue 46, item 4). When a visitor is erased, the platform must stop honouring
-- the widget token that named them, so the widget starts afresh. A visitor token is a signed, stateless bearer
-- (src/lib/security/visitor-token.ts) that lives an hour and may be renewed for a day after that; the erased
-- ids are kept on the tenant row, which the widget's guard already reads for every request (and remembers by
-- its version, so an erasure is seen at once), as hashes with the time after which no token of theirs can be
-- valid any more. Each erasure prunes the expired entries, so the list stays as short as a day's erasures.
ALTER TABLE "tenants" ADD COLUMN IF NOT EXISTS "erased_visitors" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
-- Retention per kind: contact requests and the team's internal notes may be kept for a different time than
-- conversations (null: as long as the business keeps them; the purge leaves them alone).
ALTER TABLE "tenants" ADD COLUMN IF NOT EXISTS "lead_retention_days" integer;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN IF NOT EXISTS "note_retention_days" integer;
