-- Hand-off to a person, answer ratings and the "unanswered questions" report (issue 16).
-- pg_trgm groups near-identical visitor questions; IF NOT EXISTS because migration 0005 may add it too.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
-- A visitor's request to be contacted by a person ("lead"), or a hand-off the assistant offered in a turn that
-- the visitor has not answered with contact details yet ("handoff"). The conversation may be purged by
-- retention before the business has called back, so the lead outlives it.
CREATE TABLE IF NOT EXISTS "leads" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL REFERENCES "tenants"("id") ON DELETE CASCADE,
	"conversation_id" uuid REFERENCES "conversations"("id") ON DELETE SET NULL,
	"message_id" uuid REFERENCES "messages"("id") ON DELETE SET NULL,
	"kind" text DEFAULT 'lead' NOT NULL,
	"source" text DEFAULT 'menu' NOT NULL,
	"name" text DEFAULT '' NOT NULL,
	"email" text DEFAULT '' NOT NULL,
	"phone" text DEFAULT '' NOT NULL,
	"message" text DEFAULT '' NOT NULL,
	"consent_text" text DEFAULT '' NOT NULL,
	"locale" text DEFAULT '' NOT NULL,
	"status" text DEFAULT 'new' NOT NULL,
	"handled_by" uuid REFERENCES "users"("id") ON DELETE SET NULL,
	"handled_by_label" text DEFAULT '' NOT NULL,
	"handled_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "leads_kind_check" CHECK ("kind" IN ('lead', 'handoff')),
	CONSTRAINT "leads_status_check" CHECK ("status" IN ('new', 'handled'))
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "leads_tenant_created_idx" ON "leads" ("tenant_id", "created_at" DESC, "id");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "leads_tenant_conversation_idx" ON "leads" ("tenant_id", "conversation_id");
--> statement-breakpoint
-- One rating per answer: rating again replaces it (the primary key is the answer).
CREATE TABLE IF NOT EXISTS "message_feedback" (
	"message_id" uuid PRIMARY KEY NOT NULL REFERENCES "messages"("id") ON DELETE CASCADE,
	"tenant_id" uuid NOT NULL REFERENCES "tenants"("id") ON DELETE CASCADE,
	"conversation_id" uuid NOT NULL REFERENCES "conversations"("id") ON DELETE CASCADE,
	"rating" text NOT NULL,
	"comment" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "message_feedback_rating_check" CHECK ("rating" IN ('up', 'down'))
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "message_feedback_tenant_created_idx" ON "message_feedback" ("tenant_id", "created_at");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "message_feedback_tenant_conversation_idx" ON "message_feedback" ("tenant_id", "conversation_id");
--> statement-breakpoint
-- Visitor questions of the unanswered report that an admin marked as handled; a new question like them shows
-- up again, since the bot may still fail it.
CREATE TABLE IF NOT EXISTS "unanswered_handled" (
	"message_id" uuid PRIMARY KEY NOT NULL REFERENCES "messages"("id") ON DELETE CASCADE,
	"tenant_id" uuid NOT NULL REFERENCES "tenants"("id") ON DELETE CASCADE,
	"handled_by" uuid REFERENCES "users"("id") ON DELETE SET NULL,
	"handled_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "unanswered_handled_tenant_idx" ON "unanswered_handled" ("tenant_id");
