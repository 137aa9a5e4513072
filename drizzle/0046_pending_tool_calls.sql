-- Calls of packs that act for the visitor (a pack with `confirm`, issue 41): the model's call is stored here
-- with its validated arguments and the card the visitor was shown, and runs only after the visitor's explicit
-- Confirm in that conversation. All of the flow's state is in this row, so a restart between the card and the
-- tap loses nothing. A conditional update moves pending to running, so a double tap runs the pack once; the
-- idempotency key is sent to the business too. Row-level security comes from michi_secure_tenant_tables()
-- (drizzle/0001), which the migration runner calls after every run, as for every table with a tenant_id.
CREATE TABLE IF NOT EXISTS "pending_tool_calls" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL REFERENCES "tenants"("id") ON DELETE cascade,
	"conversation_id" uuid NOT NULL REFERENCES "conversations"("id") ON DELETE cascade,
	"visitor_message_id" uuid REFERENCES "messages"("id") ON DELETE set null,
	"pack_id" text NOT NULL,
	"call_id" text NOT NULL,
	"args" jsonb NOT NULL,
	"card" jsonb NOT NULL,
	"idempotency_key" uuid DEFAULT gen_random_uuid() NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"decided_at" timestamp with time zone,
	"result" text,
	"outcome" text,
	CONSTRAINT "pending_tool_calls_status" CHECK ("status" IN ('pending', 'confirmed', 'declined', 'expired', 'running', 'done', 'failed'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "pending_tool_calls_idempotency_key" ON "pending_tool_calls" ("idempotency_key");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "pending_tool_calls_conversation_idx" ON "pending_tool_calls" ("tenant_id", "conversation_id", "created_at");
