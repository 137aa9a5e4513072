-- The live takeover (issue #28): a person from the business steps into a widget conversation. The
-- conversation carries its live state (bot → waiting → person → bot | closed), the person who has it and a
-- version that every change bumps: the turn reads the version when it opens and stores its answer only while
-- the version is unchanged (michi_finish_turn), so a takeover that lands mid-answer never lets a bot answer
-- follow a person's message. Agents' messages are messages with role 'agent' and their author.
ALTER TABLE "conversations" ADD COLUMN IF NOT EXISTS "live_state" text DEFAULT 'bot' NOT NULL
  CONSTRAINT "conversations_live_state_check" CHECK ("live_state" IN ('bot', 'waiting', 'person', 'closed'));
--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN IF NOT EXISTS "live_version" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN IF NOT EXISTS "live_agent_id" uuid REFERENCES "users"("id") ON DELETE SET NULL;
--> statement-breakpoint
-- When the visitor asked for a person (the queue's waiting time, the escalation), when a person first
-- answered and when the person's part ended (Usage: first response time, time to close).
ALTER TABLE "conversations" ADD COLUMN IF NOT EXISTS "live_requested_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN IF NOT EXISTS "live_first_response_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN IF NOT EXISTS "live_ended_at" timestamp with time zone;
--> statement-breakpoint
-- The live queue and the agents' load read only the few conversations a person is involved in.
CREATE INDEX IF NOT EXISTS "conversations_tenant_live_idx" ON "conversations" ("tenant_id", "live_state", "live_requested_at")
  WHERE "live_state" IN ('waiting', 'person');
--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN IF NOT EXISTS "agent_id" uuid REFERENCES "users"("id") ON DELETE SET NULL;
--> statement-breakpoint
-- Presence: an agent is online while their console sends heartbeats, unless they set themselves away.
CREATE TABLE IF NOT EXISTS "live_presence" (
	"tenant_id" uuid NOT NULL REFERENCES "tenants"("id") ON DELETE cascade,
	"user_id" uuid NOT NULL REFERENCES "users"("id") ON DELETE cascade,
	"seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"away" boolean DEFAULT false NOT NULL,
	"last_assigned_at" timestamp with time zone,
	CONSTRAINT "live_presence_pk" PRIMARY KEY ("tenant_id", "user_id")
);
--> statement-breakpoint
-- The business's live settings: how many conversations one agent holds at most, after how many minutes an
-- unclaimed visitor is escalated by mail and webhook, the opening hours (null: always open) and the team's
-- saved replies.
CREATE TABLE IF NOT EXISTS "live_settings" (
	"tenant_id" uuid PRIMARY KEY REFERENCES "tenants"("id") ON DELETE cascade,
	"max_per_agent" integer DEFAULT 3 NOT NULL,
	"escalate_after_min" integer DEFAULT 5 NOT NULL,
	"hours" jsonb,
	"saved_replies" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
-- The finish statement's signature changes (the live version, a text outcome): the old one goes.
DROP FUNCTION IF EXISTS michi_finish_turn(uuid, uuid, uuid, text, text, text, text, integer, integer, boolean, jsonb, text, timestamptz);
--> statement-breakpoint
CREATE OR REPLACE FUNCTION michi_open_turn(
  p_tenant uuid,
  p_visitor text,
  p_conversation uuid,
  p_origin text,
  p_page_url text,
  p_locale text,
  p_message text,
  p_retry boolean,
  p_month text,
  p_budget bigint,
  p_history integer,
  p_limit_keys text[],
  p_limit_points integer[],
  p_limit_expire bigint[],
  p_limit_max integer[],
  p_now bigint
) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_used bigint;
  v_conversation uuid := p_conversation;
  v_message uuid;
  v_history jsonb := '[]'::jsonb;
  v_packs jsonb;
  v_owner text;
  v_wait integer;
  v_state text;
  v_version integer := 0;
  v_seq bigint;
BEGIN
  IF p_limit_keys IS NOT NULL THEN
    v_wait := michi_take_rate_points(p_limit_keys, p_limit_points, p_limit_expire, p_limit_max, p_now);
    IF v_wait > 0 THEN
      RETURN jsonb_build_object('refused', 'rate', 'retryAfterSec', v_wait);
    END IF;
  END IF;
  PERFORM michi_enter_tenant(p_tenant);
  IF p_budget > 0 THEN
    SELECT u.prompt_tokens + u.completion_tokens INTO v_used
      FROM usage_monthly u WHERE u.tenant_id = p_tenant AND u.month = p_month;
    IF coalesce(v_used, 0) >= p_budget THEN
      RETURN jsonb_build_object('refused', 'budget');
    END IF;
  END IF;
  IF v_conversation IS NOT NULL THEN
    -- Someone else's conversation looks exactly like a missing one.
    SELECT c.visitor_id, c.live_state, c.live_version INTO v_owner, v_state, v_version
      FROM conversations c WHERE c.id = v_conversation FOR UPDATE;
    IF v_owner IS DISTINCT FROM p_visitor THEN
      RETURN jsonb_build_object('refused', 'not_found');
    END IF;
    UPDATE conversations c SET last_activity_at = now() WHERE c.id = v_conversation;
    -- Waiting for or talking with a person: the model is not called. The message is stored and appended to
    -- the live log in this same statement, so the person's console shows exactly what was stored.
    IF v_state IN ('waiting', 'person') THEN
      IF p_retry THEN
        RETURN jsonb_build_object('refused', 'live', 'state', v_state);
      END IF;
      INSERT INTO messages (tenant_id, conversation_id, role, content)
        VALUES (p_tenant, v_conversation, 'user', p_message) RETURNING id INTO v_message;
      v_seq := michi_append_live_event(v_conversation, 'visitor_message',
                                       jsonb_build_object('messageId', v_message, 'text', p_message));
      RETURN jsonb_build_object('live', v_state, 'conversationId', v_conversation, 'messageId', v_message,
                                'seq', v_seq);
    END IF;
    SELECT coalesce(jsonb_agg(jsonb_build_object('id', m.id, 'role', m.role, 'content', m.content,
                                                 'status', m.status) ORDER BY m.created_at DESC, m.id DESC),
                    '[]'::jsonb)
      INTO v_history
      FROM (SELECT x.id, x.role, x.content, x.status, x.created_at FROM messages x
             WHERE x.conversation_id = v_conversation
             ORDER BY x.created_at DESC, x.id DESC LIMIT p_history) m;
  ELSE
    INSERT INTO conversations (tenant_id, visitor_id, origin, page_url, locale)
      VALUES (p_tenant, p_visitor, p_origin, p_page_url, p_locale) RETURNING id INTO v_conversation;
  END IF;
  IF NOT p_retry THEN
    INSERT INTO messages (tenant_id, conversation_id, role, content)
      VALUES (p_tenant, v_conversation, 'user', p_message) RETURNING id INTO v_message;
  END IF;
  SELECT coalesce(jsonb_agg(jsonb_build_object('packId', p.pack_id, 'config', p.config, 'secrets', p.secrets,
                                               'updatedAt', p.updated_at) ORDER BY p.pack_id), '[]'::jsonb)
    INTO v_packs
    FROM pack_configs p WHERE p.enabled;
  RETURN jsonb_build_object('conversationId', v_conversation, 'messageId', v_message,
                            'history', v_history, 'packs', v_packs, 'liveVersion', v_version);
END $$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION michi_open_turn(uuid, text, uuid, text, text, text, text, boolean, text, bigint, integer, text[], integer[], bigint[], integer[], bigint) FROM PUBLIC;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION michi_finish_turn(
  p_tenant uuid,
  p_message uuid,
  p_conversation uuid,
  p_content text,
  p_status text,
  p_reason text,
  p_model text,
  p_prompt_tokens integer,
  p_completion_tokens integer,
  p_estimated boolean,
  p_runs jsonb,
  p_month text,
  p_at timestamptz,
  p_live_version integer
) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  v_bot boolean;
BEGIN
  PERFORM michi_enter_tenant(p_tenant);
  -- A person took the conversation (or was asked for, or it changed hands and came back) while the model
  -- answered: the answer is not stored, so no bot answer ever follows a person's message. Every state change
  -- takes this same row lock and bumps live_version, so the two cannot interleave. The tokens were spent.
  UPDATE conversations c SET last_activity_at = p_at
    WHERE c.id = p_conversation AND c.live_version = p_live_version AND c.live_state IN ('bot', 'closed');
  v_bot := FOUND;
  IF v_bot THEN
    INSERT INTO messages (id, tenant_id, conversation_id, role, content, status, reason, model, prompt_tokens,
                          completion_tokens, usage_estimated)
      VALUES (p_message, p_tenant, p_conversation, 'assistant', p_content, p_status, p_reason, p_model,
              p_prompt_tokens, p_completion_tokens, p_estimated)
      ON CONFLICT (id) DO NOTHING;
    IF NOT FOUND THEN
      RETURN 'duplicate';
    END IF;
    INSERT INTO tool_runs (tenant_id, conversation_id, message_id, pack_id, call_id, args, result, result_chars,
                           result_tokens, duration_ms, outcome)
      SELECT p_tenant, p_conversation, p_message, r.pack_id, r.call_id, r.args, r.result, r.result_chars,
             r.result_tokens, r.duration_ms, r.outcome
        FROM jsonb_to_recordset(coalesce(p_runs, '[]'::jsonb)) AS r(pack_id text, call_id text, args jsonb,
             result text, result_chars integer, result_tokens integer, duration_ms integer, outcome text);
  ELSIF EXISTS (SELECT 1 FROM messages m WHERE m.id = p_message) THEN
    RETURN 'duplicate';
  END IF;
  IF p_prompt_tokens > 0 OR p_completion_tokens > 0 THEN
    INSERT INTO usage_monthly AS u (tenant_id, month, prompt_tokens, completion_tokens, estimated_tokens)
      VALUES (p_tenant, p_month, p_prompt_tokens, p_completion_tokens,
              CASE WHEN p_estimated THEN p_prompt_tokens + p_completion_tokens ELSE 0 END)
      ON CONFLICT (tenant_id, month) DO UPDATE SET
        prompt_tokens = u.prompt_tokens + excluded.prompt_tokens,
        completion_tokens = u.completion_tokens + excluded.completion_tokens,
        estimated_tokens = u.estimated_tokens + excluded.estimated_tokens;
  END IF;
  RETURN CASE WHEN v_bot THEN 'stored' ELSE 'superseded' END;
END $$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION michi_finish_turn(uuid, uuid, uuid, text, text, text, text, integer, integer, boolean, jsonb, text, timestamptz, integer) FROM PUBLIC;
