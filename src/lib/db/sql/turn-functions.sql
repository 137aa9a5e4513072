-- The chat turn's SQL, as the database runs it now: the source the migrations are checked against
-- (tests/integration/turn-functions-source.test.ts fails when the functions a migrated database holds differ
-- from these). To change one, change it here and add a migration that carries the same text; applied
-- migrations are never edited.
--
-- A turn is two statements: michi_open_turn (or michi_open_turn_as_seen) before the model is called and
-- michi_finish_turn after the answer ended. Each enters the tenant first, exactly as db.forTenant does
-- (transaction-local app.tenant_id and role michi_tenant), so everything after that line runs under
-- row-level security; called on its own, a function is its own transaction, so the setting and the role end
-- with it. Only the platform role calls them (EXECUTE is revoked from PUBLIC), through DbHandle.tenantCall
-- (src/lib/db/client.ts), and the rate limits through takePoints (src/lib/db/queries/rate-limits.ts).

-- Enters a tenant for the rest of the calling function's transaction.
CREATE OR REPLACE FUNCTION michi_enter_tenant(p_tenant uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF p_tenant IS NULL THEN
    RAISE EXCEPTION 'michi_enter_tenant needs a tenant';
  END IF;
  PERFORM set_config('app.tenant_id', p_tenant::text, true), set_config('role', 'michi_tenant', true);
END $$;

-- The rate limits of one request, in one statement: `p_points` added to each key's counter with the
-- arithmetic of rate-limiter-flexible's own upsert (lib/RateLimiterPostgres.js, _upsert), so the library's
-- limiters and these count together on the same rows: a key whose window has ended (expire <= p_now) starts
-- over with the new expiry. Returns the longest wait in whole seconds of a key now over its `p_max`, or 0
-- when every key allows the request. The one place this arithmetic is written (src/lib/security/rate-limit.ts
-- takeAll and michi_open_turn both call it).
CREATE OR REPLACE FUNCTION michi_take_rate_points(
  p_keys text[],
  p_points integer[],
  p_expire bigint[],
  p_max integer[],
  p_now bigint
) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  v_wait integer;
BEGIN
  -- Keys come sorted, so concurrent statements lock shared rows (the tenant's) in the same order.
  WITH taken AS (
    INSERT INTO rate_limits AS r (key, points, expire)
      SELECT * FROM unnest(p_keys::varchar[], p_points, p_expire)
      ON CONFLICT (key) DO UPDATE SET
        points = CASE WHEN r.expire <= p_now THEN excluded.points ELSE r.points + excluded.points END,
        expire = CASE WHEN r.expire <= p_now THEN excluded.expire ELSE r.expire END
      RETURNING r.key, r.points, r.expire
  )
  SELECT coalesce(max(CASE WHEN t.points <= m.max THEN 0
                           ELSE greatest(1, ceil(coalesce(t.expire - p_now, 0) / 1000.0))::integer END), 0)
    INTO v_wait
    FROM taken t JOIN unnest(p_keys, p_max) AS m(key, max) ON m.key = t.key;
  RETURN v_wait;
END $$;

-- Opens a turn: the rate limits when they ride along (null arrays: taken elsewhere, a Redis or memory store),
-- the month's budget, the visitor's conversation (theirs, found by its primary key, or a new one), the history
-- before the visitor's message, the message itself (not on a retry) and the tenant's enabled pack rows.
-- Refusals come back as {"refused": ...} before anything is written.
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

-- michi_open_turn for a caller that holds the tenant row it read a moment ago: `p_seen` is that row's xmin.
-- Every UPDATE of a tenant writes a new row version with a new xmin, so a row still carrying it is the very
-- row the caller's guard checked; a changed or missing one refuses with 'stale' before anything is taken or
-- written.
CREATE OR REPLACE FUNCTION michi_open_turn_as_seen(
  p_tenant uuid,
  p_seen text,
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
BEGIN
  IF NOT EXISTS (SELECT 1 FROM tenants t WHERE t.id = p_tenant AND t.xmin::text = p_seen) THEN
    RETURN jsonb_build_object('refused', 'stale');
  END IF;
  RETURN michi_open_turn(p_tenant, p_visitor, p_conversation, p_origin, p_page_url, p_locale, p_message,
                         p_retry, p_month, p_budget, p_history, p_limit_keys, p_limit_points, p_limit_expire,
                         p_limit_max, p_now);
END $$;

-- Closes a turn: the answer with the id the caller chose, its tool runs, the month's usage and the
-- conversation's last activity, atomically. `p_live_version` is the conversation's live version the opening
-- statement read. Returns 'stored'; 'duplicate' when that id is already stored (an earlier attempt committed
-- but its acknowledgement was lost), so a retried close never stores an answer twice; 'superseded' when the
-- conversation's live state changed since the turn opened: only the usage is kept.
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
  p_live_version integer,
  p_figure_check jsonb
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
                          completion_tokens, usage_estimated, figure_check)
      VALUES (p_message, p_tenant, p_conversation, 'assistant', p_content, p_status, p_reason, p_model,
              p_prompt_tokens, p_completion_tokens, p_estimated, p_figure_check)
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

REVOKE ALL ON FUNCTION michi_take_rate_points(text[], integer[], bigint[], integer[], bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION michi_open_turn(uuid, text, uuid, text, text, text, text, boolean, text, bigint, integer, text[], integer[], bigint[], integer[], bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION michi_open_turn_as_seen(uuid, text, text, uuid, text, text, text, text, boolean, text, bigint, integer, text[], integer[], bigint[], integer[], bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION michi_finish_turn(uuid, uuid, uuid, text, text, text, text, integer, integer, boolean, jsonb, text, timestamptz, integer, jsonb) FROM PUBLIC;
