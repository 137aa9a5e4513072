-- The live takeover's log (issue #28): every live item (a visitor's or an agent's message, a state change, an
-- internal note, an assignment) is stored here first and delivered after. `seq` is the Server-Sent Event id:
-- a stream reads the rows after the client's Last-Event-ID, so a reconnect, a reload or a restarted instance
-- delivers what it missed, in order, once. The fan-out (LISTEN/NOTIFY, Redis pub/sub) only wakes streams.
-- Append-only; rows go with the conversation and with the business (ON DELETE cascade). Row-level security
-- like every table with a tenant_id (the migration runner's michi_secure_tenant_tables).
CREATE TABLE IF NOT EXISTS "live_events" (
	"seq" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
	"tenant_id" uuid NOT NULL REFERENCES "tenants"("id") ON DELETE cascade,
	"conversation_id" uuid NOT NULL REFERENCES "conversations"("id") ON DELETE cascade,
	"kind" text NOT NULL,
	"data" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
-- The visitor's stream reads one conversation after a seq; the console's reads the tenant after a seq.
CREATE INDEX IF NOT EXISTS "live_events_conversation_seq_idx" ON "live_events" ("tenant_id", "conversation_id", "seq");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "live_events_tenant_seq_idx" ON "live_events" ("tenant_id", "seq");
--> statement-breakpoint
-- The one way to append (from TypeScript, appendLiveEvent, and from the turn's SQL functions): inside the
-- caller's tenant transaction, as the tenant (row-level security bounds it). Appends of one tenant take turns
-- (a transaction-level advisory lock in a two-key space of its own, 4242027), so seq order is commit order
-- within a tenant: a stream reading "after seq N" can never pass over a row that commits later with a smaller
-- seq. The lock is held to the end of the caller's transaction, so append last. The wake-up (pg_notify,
-- "<tenant>:<conversation>", no content) is delivered by Postgres only at commit, to every instance.
CREATE OR REPLACE FUNCTION michi_append_live_event(p_conversation uuid, p_kind text, p_data jsonb) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  v_tenant uuid := michi_current_tenant();
  v_seq bigint;
BEGIN
  IF v_tenant IS NULL THEN
    RAISE EXCEPTION 'michi_append_live_event needs a tenant transaction';
  END IF;
  PERFORM pg_advisory_xact_lock(4242027, hashtext(v_tenant::text));
  INSERT INTO live_events (tenant_id, conversation_id, kind, data)
    SELECT c.tenant_id, c.id, p_kind, p_data FROM conversations c
    WHERE c.id = p_conversation AND c.tenant_id = v_tenant
    RETURNING seq INTO v_seq;
  IF v_seq IS NULL THEN
    RAISE EXCEPTION 'live event for a conversation that is not the tenant''s';
  END IF;
  PERFORM pg_notify('michi_live', v_tenant::text || ':' || p_conversation::text);
  RETURN v_seq;
END $$;
--> statement-breakpoint
-- A stream's read in one round trip (db.tenantCall, like the turn's functions): enters the tenant first, so
-- row-level security bounds it, then the events after p_after, oldest first, as one JSON array of the wire
-- shape (src/shared/live-events.ts). One conversation's (the visitor's stream, only p_kinds) or the tenant's
-- (the console). Two branches, so each keeps its own index plan.
CREATE OR REPLACE FUNCTION michi_read_live_events(p_tenant uuid, p_after bigint, p_conversation uuid, p_kinds text[], p_limit integer) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v jsonb;
BEGIN
  PERFORM michi_enter_tenant(p_tenant);
  IF p_conversation IS NULL THEN
    SELECT jsonb_agg(jsonb_build_object('seq', e.seq, 'conversationId', e.conversation_id, 'kind', e.kind,
        'data', e.data, 'at', e.created_at) ORDER BY e.seq) INTO v
      FROM (SELECT * FROM live_events l WHERE l.tenant_id = p_tenant AND l.seq > p_after
              AND (p_kinds IS NULL OR l.kind = ANY (p_kinds))
            ORDER BY l.seq LIMIT p_limit) e;
  ELSE
    SELECT jsonb_agg(jsonb_build_object('seq', e.seq, 'conversationId', e.conversation_id, 'kind', e.kind,
        'data', e.data, 'at', e.created_at) ORDER BY e.seq) INTO v
      FROM (SELECT * FROM live_events l WHERE l.tenant_id = p_tenant AND l.conversation_id = p_conversation
              AND l.seq > p_after AND (p_kinds IS NULL OR l.kind = ANY (p_kinds))
            ORDER BY l.seq LIMIT p_limit) e;
  END IF;
  RETURN coalesce(v, '[]'::jsonb);
END $$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION michi_read_live_events(uuid, bigint, uuid, text[], integer) FROM PUBLIC;
