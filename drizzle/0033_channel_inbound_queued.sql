-- Issue 29: the webhook's acknowledgement stores an inbound message alone and queues its job after the
-- commit (src/lib/channels/enqueue.ts). queued_at says the job exists; a message stored but never queued (the
-- process died between the two) is found by the sweep through the partial index, which holds only those.
ALTER TABLE "channel_inbound" ADD COLUMN IF NOT EXISTS "queued_at" timestamp with time zone;
--> statement-breakpoint
-- Until now a message was stored and queued in one transaction: every existing row was queued.
UPDATE "channel_inbound" SET "queued_at" = "received_at" WHERE "queued_at" IS NULL;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "channel_inbound_unqueued_idx" ON "channel_inbound" ("received_at") WHERE "queued_at" IS NULL AND "status" = 'pending';
--> statement-breakpoint
-- The acknowledgement's store in one statement, one round trip instead of four (begin, the tenant's settings,
-- the insert, commit): it enters the tenant as db.forTenant does, so row-level security bounds the insert,
-- and, called alone, it is its own transaction. Each message once (Meta's wamid, Telegram's update_id are
-- unique per connection); answers the contacts that got a new message, which are the jobs to queue.
CREATE OR REPLACE FUNCTION michi_store_inbound(p_tenant uuid, p_rows jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v jsonb;
BEGIN
  PERFORM michi_enter_tenant(p_tenant);
  WITH inserted AS (
    INSERT INTO channel_inbound (tenant_id, connection_id, external_id, contact, address, kind, body, sent_at)
      SELECT p_tenant, r.connection_id, r.external_id, r.contact, r.address, r.kind, r.body, r.sent_at
        FROM jsonb_to_recordset(p_rows) AS r(connection_id uuid, external_id text, contact text, address text,
             kind text, body jsonb, sent_at timestamptz)
      ON CONFLICT (connection_id, external_id) DO NOTHING
      RETURNING contact
  )
  SELECT jsonb_agg(DISTINCT contact) INTO v FROM inserted;
  RETURN coalesce(v, '[]'::jsonb);
END $$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION michi_store_inbound(uuid, jsonb) FROM PUBLIC;
