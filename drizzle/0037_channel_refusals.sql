-- Refused webhook deliveries (issue 29): a wrong or rotated WhatsApp app secret, or a Telegram webhook whose
-- secret_token no longer matches, makes every delivery fail with 401 while nothing else looks wrong. The
-- connection keeps when a delivery was last refused, why (a fixed reason code, never anything from the
-- refused request's body) and how many were refused since the last good one; a good delivery clears them.
-- Written at most once a minute per connection, so a flood of forged requests cannot turn into a flood of
-- writes (src/lib/channels/refusals.ts).
ALTER TABLE "channel_connections" ADD COLUMN IF NOT EXISTS "last_refused_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "channel_connections" ADD COLUMN IF NOT EXISTS "last_refused_reason" text;
--> statement-breakpoint
ALTER TABLE "channel_connections" ADD COLUMN IF NOT EXISTS "refused_count" integer DEFAULT 0 NOT NULL;
