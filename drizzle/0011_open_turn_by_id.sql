-- michi_open_turn finds the visitor's conversation by its primary key alone, then compares the visitor
-- (issue 17, bench/README.md). In 0009 one UPDATE asked for `id = … AND visitor_id = …`; before autovacuum
-- had analyzed a young conversations table the planner served that from conversations_tenant_visitor_idx and
-- read every conversation of the visitor to find one, so a returning visitor's turn slowed down with each
-- conversation they had had. A primary-key lookup needs no statistics to be chosen. Same refusals, same
-- writes; CREATE OR REPLACE keeps the privileges.
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
  v_owner text;
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
