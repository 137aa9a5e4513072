-- The sites that tried to show a business's widget but are not among its site domains, as the loader reported
-- them (its `o` parameter: a claim, not proof). Site & embed lists the recent ones, so an owner whose launcher
-- "does not appear" sees the domain to add. Bounded: at most one write a minute per site, the 20 newest sites
-- per business, nothing older than 30 days.
CREATE TABLE "widget_refused_origins" (
	"tenant_id" uuid NOT NULL REFERENCES "tenants"("id") ON DELETE CASCADE,
	"origin" text NOT NULL,
	"first_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"hits" integer DEFAULT 1 NOT NULL,
	CONSTRAINT "widget_refused_origins_pk" PRIMARY KEY ("tenant_id", "origin")
);
