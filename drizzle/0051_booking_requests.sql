-- Booking requests (issue 41, the request_booking pack): filed in the Inbox as leads of their own kind, with
-- the confirmed call's idempotency key, unique per business, so the same request filed twice is one entry.
ALTER TABLE "leads" DROP CONSTRAINT IF EXISTS "leads_kind_check";
--> statement-breakpoint
ALTER TABLE "leads" ADD CONSTRAINT "leads_kind_check" CHECK ("kind" IN ('lead', 'handoff', 'booking'));
--> statement-breakpoint
ALTER TABLE "leads" ADD COLUMN IF NOT EXISTS "request_key" uuid;
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "leads_tenant_request_key" ON "leads" ("tenant_id", "request_key") WHERE "request_key" IS NOT NULL;
