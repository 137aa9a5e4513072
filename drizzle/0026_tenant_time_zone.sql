-- The business's own time zone (an IANA name such as "Europe/Madrid"): every date and chart of its admin
-- reads in it. Existing businesses keep UTC, what the admin showed before; sign-up takes the browser's zone.
ALTER TABLE "tenants" ADD COLUMN "time_zone" text DEFAULT 'UTC' NOT NULL;
