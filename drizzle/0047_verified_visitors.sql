-- Verified visitors (issue 41, item 4). A business's identity secret signs the tokens its own server gives a
-- signed-in visitor (HS256 JWTs); it is sealed like a webhook's signing secret (AES-256-GCM under
-- MICHI_SECRET_KEY, bound to the tenant) and shown once. It sits on the tenant row so the widget's guard,
-- which reads that row for every request (and remembers it by its version), sees a rotation at once.
ALTER TABLE "tenants" ADD COLUMN IF NOT EXISTS "visitor_identity_secret" jsonb;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN IF NOT EXISTS "visitor_identity_required" boolean DEFAULT true NOT NULL;--> statement-breakpoint
-- The verified visitor a conversation belongs to ({id, email?, name?}), for the Inbox, the live console and
-- webhooks. The conversation's visitor_id is then derived from the token's sub, so every device shares it.
ALTER TABLE "conversations" ADD COLUMN IF NOT EXISTS "verified_visitor" jsonb;
