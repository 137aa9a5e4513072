-- Messaging channels (issue 29): a business connects WhatsApp (Cloud API) or Telegram, and people who write
-- there get the same chat turn as the widget. Every table carries tenant_id, so the migration runner's
-- michi_secure_tenant_tables() puts each under row-level security like the others.
--
-- Phone numbers and Telegram chat ids are personal data. They are stored in two places only: a contact's
-- `address` (needed to reply) and an inbound message's `address` until it has been processed (then cleared).
-- A contact row belongs to its conversation (ON DELETE cascade), so the retention purge that deletes the
-- conversation deletes the number with it; the conversation itself only knows a hash (visitor_id).
ALTER TABLE "conversations" ADD COLUMN IF NOT EXISTS "channel" text DEFAULT 'web' NOT NULL;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "conversations_tenant_channel_idx" ON "conversations" ("tenant_id", "channel", "last_activity_at" DESC);
--> statement-breakpoint
-- One connection per business and channel. `key` is the random part of the webhook URL, and the only way a
-- request finds its business: never anything in the body. Secrets (access token, app secret, verify token,
-- bot token, webhook secret) are sealed like pack secrets and never shown again.
CREATE TABLE IF NOT EXISTS "channel_connections" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL REFERENCES "tenants"("id") ON DELETE cascade,
	"channel" text NOT NULL,
	"key" text NOT NULL,
	"settings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"secrets" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"last_inbound_at" timestamp with time zone,
	"last_outbound_at" timestamp with time zone,
	"last_error" text,
	"last_error_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "channel_connections_key" ON "channel_connections" ("key");
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "channel_connections_tenant_channel" ON "channel_connections" ("tenant_id", "channel");
--> statement-breakpoint
-- A person on a channel: where to reply, their conversation, when they last wrote (WhatsApp's 24-hour
-- window), whether they opted out, and the claim that keeps one contact's messages answered one at a time.
CREATE TABLE IF NOT EXISTS "channel_contacts" (
	"tenant_id" uuid NOT NULL REFERENCES "tenants"("id") ON DELETE cascade,
	"connection_id" uuid NOT NULL REFERENCES "channel_connections"("id") ON DELETE cascade,
	"address" text NOT NULL,
	"conversation_id" uuid NOT NULL REFERENCES "conversations"("id") ON DELETE cascade,
	"last_inbound_at" timestamp with time zone,
	"opted_out_at" timestamp with time zone,
	"busy_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "channel_contacts_pk" PRIMARY KEY ("connection_id", "address")
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "channel_contacts_conversation_idx" ON "channel_contacts" ("tenant_id", "conversation_id");
--> statement-breakpoint
-- Every inbound message once: the provider's id is unique per connection, so a retried delivery inserts
-- nothing. The person's address and text stay only until the message is processed.
CREATE TABLE IF NOT EXISTS "channel_inbound" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL REFERENCES "tenants"("id") ON DELETE cascade,
	"connection_id" uuid NOT NULL REFERENCES "channel_connections"("id") ON DELETE cascade,
	"external_id" text NOT NULL,
	"contact" text NOT NULL,
	"address" text,
	"kind" text NOT NULL,
	"body" jsonb,
	"sent_at" timestamp with time zone NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"processed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "channel_inbound_external" ON "channel_inbound" ("connection_id", "external_id");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "channel_inbound_pending_idx" ON "channel_inbound" ("connection_id", "contact", "sent_at") WHERE "status" = 'pending';
--> statement-breakpoint
-- Every message sent to a person, with the provider's id and its last status (sent, delivered, read, failed
-- with the provider's code), or why it was not sent (outside the 24-hour window).
CREATE TABLE IF NOT EXISTS "channel_outbound" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL REFERENCES "tenants"("id") ON DELETE cascade,
	"connection_id" uuid NOT NULL REFERENCES "channel_connections"("id") ON DELETE cascade,
	"conversation_id" uuid NOT NULL REFERENCES "conversations"("id") ON DELETE cascade,
	"batch" uuid NOT NULL,
	"part" integer NOT NULL,
	"body" jsonb NOT NULL,
	"external_id" text,
	"status" text DEFAULT 'queued' NOT NULL,
	"error_code" text,
	"error_title" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "channel_outbound_batch_idx" ON "channel_outbound" ("tenant_id", "batch", "part");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "channel_outbound_external_idx" ON "channel_outbound" ("connection_id", "external_id");
--> statement-breakpoint
-- The operator's platform-wide switch: one row, no tenant (read on the platform path).
CREATE TABLE IF NOT EXISTS "channel_platform" (
	"id" boolean PRIMARY KEY DEFAULT true NOT NULL CHECK ("id"),
	"enabled" boolean DEFAULT true NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
