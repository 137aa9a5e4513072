-- Notices the platform sends a business about its own set-up (a pack that keeps failing, the month's token
-- budget at 80% and 100%). One row per notice sent: the key names what it was about (the pack and when its
-- failing streak began, or the month and threshold), so the same trouble is mailed once, and a new streak
-- or a new month is mailed again. Under row-level security like every tenant table.
CREATE TABLE "tenant_notices" (
	"tenant_id" uuid NOT NULL REFERENCES "tenants"("id") ON DELETE CASCADE,
	"kind" text NOT NULL,
	"key" text NOT NULL,
	"sent_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tenant_notices_pk" PRIMARY KEY ("tenant_id", "kind", "key")
);
