-- michi_open_turn_as_seen (issue 17): the chat opens a turn without reading the tenant first when it still
-- holds the tenant row it read a moment ago. `p_seen` is the xmin of that row as it was read: every UPDATE of
-- a tenant writes a new row version with a new xmin, so a row still carrying it is the very row the guard
-- checked (status, site domains, limits, budget, bot). A changed or missing row refuses with 'stale' before
-- anything is taken or written; the caller then reads the tenant afresh, guards again and opens the turn with
-- michi_open_turn. Otherwise this is michi_open_turn (drizzle/0011) unchanged: one round trip for the whole
-- opening, and the tenant lookup before it is no longer on the visitor's path.
CREATE FUNCTION michi_open_turn_as_seen(
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
--> statement-breakpoint
REVOKE ALL ON FUNCTION michi_open_turn_as_seen(uuid, text, text, uuid, text, text, text, text, boolean, text, bigint, integer, text[], integer[], bigint[], integer[], bigint) FROM PUBLIC;
