-- The rate-limit arithmetic in one function, michi_take_rate_points, which michi_open_turn and the
-- platform's takeAll (src/lib/db/queries/rate-limits.ts) both call instead of each writing the upsert and
-- the wait. michi_open_turn keeps its signature, its refusals and its writes; only its limits step calls the
-- function. The bodies are those of src/lib/db/sql/turn-functions.sql.
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
--> statement-breakpoint
REVOKE ALL ON FUNCTION michi_take_rate_points(text[], integer[], bigint[], integer[], bigint) FROM PUBLIC;
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
    SELECT c.visitor_id INTO v_owner FROM conversations c WHERE c.id = v_conversation FOR UPDATE;
    IF v_owner IS DISTINCT FROM p_visitor THEN
      RETURN jsonb_build_object('refused', 'not_found');
    END IF;
    UPDATE conversations c SET last_activity_at = now() WHERE c.id = v_conversation;
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
                            'history', v_history, 'packs', v_packs);
END $$;
