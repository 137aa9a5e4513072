-- One channel-blind outbox: a reply is stored once as Markdown with the buttons it offers, and formatted for
-- its channel when it is sent (the row then holds the channel's body; a reply longer than one message gets
-- further pieces). Rows queued before this keep their formatted body and are sent as they are, once.
ALTER TABLE "channel_outbound" ALTER COLUMN "body" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "channel_outbound" ADD COLUMN "reply" jsonb;--> statement-breakpoint
ALTER TABLE "channel_outbound" ADD COLUMN "piece" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "channel_outbound" ADD CONSTRAINT "channel_outbound_body_or_reply" CHECK ("body" IS NOT NULL OR "reply" IS NOT NULL);
