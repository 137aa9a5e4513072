-- The figure check's verdict stored with the answer (issue 42): which figures the answer stated and where the
-- turn's sources state each, null when the check was off or found no figure. The end-of-turn statement takes
-- it as one more argument, so the verdict costs no extra round trip; the old signature goes.
ALTER TABLE "messages" ADD COLUMN IF NOT EXISTS "figure_check" jsonb;
--> statement-breakpoint
DROP FUNCTION IF EXISTS michi_finish_turn(uuid, uuid, uuid, text, text, text, text, integer, integer, boolean, jsonb, text, timestamptz, integer);
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
--> statement-breakpoint
REVOKE ALL ON FUNCTION michi_finish_turn(uuid, uuid, uuid, text, text, text, text, integer, integer, boolean, jsonb, text, timestamptz, integer, jsonb) FROM PUBLIC;
