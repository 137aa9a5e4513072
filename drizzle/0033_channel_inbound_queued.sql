-- Issue 29: the webhook's acknowledgement stores an inbound message alone and queues its job after the
-- commit (src/lib/channels/enqueue.ts). queued_at says the job exists; a message stored but never queued (the
-- process died between the two) is found by the sweep through the partial index, which holds only those.
ALTER TABLE "channel_inbound" ADD COLUMN IF NOT EXISTS "queued_at" timestamp with time zone;
--> statement-breakpoint
-- Until now a message was stored and queued in one transaction: every existing row was queued.
UPDATE "channel_inbound" SET "queued_at" = "received_at" WHERE "queued_at" IS NULL;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "channel_inbound_unqueued_idx" ON "channel_inbound" ("received_at") WHERE "queued_at" IS NULL AND "status" = 'pending';
