-- A chat turn in two round trips (issue 17): one statement opens it, one closes it. Each function enters the
-- tenant first, exactly as db.forTenant does (transaction-local app.tenant_id and role michi_tenant), so every
-- statement after that line runs under row-level security; called on its own, the function is its own
-- transaction, so the setting and the role end with it. Only the platform role calls them (michi_tenant
-- cannot: it never gets EXECUTE), and only through DbHandle.tenantCall (src/lib/db/client.ts).

CREATE OR REPLACE FUNCTION michi_enter_tenant(p_tenant uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF p_tenant IS NULL THEN
    RAISE EXCEPTION 'michi_enter_tenant needs a tenant';
  END IF;
  PERFORM set_config('app.tenant_id', p_tenant::text, true), set_config('role', 'michi_tenant', true);
END $$;
--> statement-breakpoint
-- Opens a turn: the month's budget, the visitor's conversation (theirs, or a new one), the history before the
-- visitor's message, the message itself (not on a retry) and the tenant's enabled pack rows. Refusals come
-- back as {"refused": ...} before anything is written.
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
  p_history integer
) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_used bigint;
  v_conversation uuid := p_conversation;
  v_message uuid;
  v_history jsonb := '[]'::jsonb;
  v_packs jsonb;
BEGIN
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
    UPDATE conversations c SET last_activity_at = now()
      WHERE c.id = v_conversation AND c.visitor_id = p_visitor;
    IF NOT FOUND THEN
      RETURN jsonb_build_object('refused', 'not_found');
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
                            'history', v_history, 'packs', v_packs);
END $$;
--> statement-breakpoint
-- Closes a turn: the answer with the id the caller chose, its tool runs, the month's usage and the
-- conversation's last activity, atomically. Returns false when that id is already stored (an earlier attempt
-- committed but its acknowledgement was lost), so a retried close never stores an answer twice.
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
  p_at timestamptz
) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  PERFORM michi_enter_tenant(p_tenant);
  INSERT INTO messages (id, tenant_id, conversation_id, role, content, status, reason, model, prompt_tokens,
                        completion_tokens, usage_estimated)
    VALUES (p_message, p_tenant, p_conversation, 'assistant', p_content, p_status, p_reason, p_model,
            p_prompt_tokens, p_completion_tokens, p_estimated)
    ON CONFLICT (id) DO NOTHING;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  INSERT INTO tool_runs (tenant_id, conversation_id, message_id, pack_id, call_id, args, result, result_chars,
                         result_tokens, duration_ms, outcome)
    SELECT p_tenant, p_conversation, p_message, r.pack_id, r.call_id, r.args, r.result, r.result_chars,
           r.result_tokens, r.duration_ms, r.outcome
      FROM jsonb_to_recordset(coalesce(p_runs, '[]'::jsonb)) AS r(pack_id text, call_id text, args jsonb,
           result text, result_chars integer, result_tokens integer, duration_ms integer, outcome text);
  IF p_prompt_tokens > 0 OR p_completion_tokens > 0 THEN
    INSERT INTO usage_monthly AS u (tenant_id, month, prompt_tokens, completion_tokens, estimated_tokens)
      VALUES (p_tenant, p_month, p_prompt_tokens, p_completion_tokens,
              CASE WHEN p_estimated THEN p_prompt_tokens + p_completion_tokens ELSE 0 END)
      ON CONFLICT (tenant_id, month) DO UPDATE SET
        prompt_tokens = u.prompt_tokens + excluded.prompt_tokens,
        completion_tokens = u.completion_tokens + excluded.completion_tokens,
        estimated_tokens = u.estimated_tokens + excluded.estimated_tokens;
  END IF;
  UPDATE conversations c SET last_activity_at = p_at WHERE c.id = p_conversation;
  RETURN true;
END $$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION michi_open_turn(uuid, text, uuid, text, text, text, text, boolean, text, bigint, integer) FROM PUBLIC;
--> statement-breakpoint
REVOKE ALL ON FUNCTION michi_finish_turn(uuid, uuid, uuid, text, text, text, text, integer, integer, boolean, jsonb, text, timestamptz) FROM PUBLIC;
