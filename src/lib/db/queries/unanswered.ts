import "server-only";
import { sql } from "drizzle-orm";
import { rowsOf, type TenantTx } from "../client";

// The raw material of the "unanswered questions" report: visitor questions whose answer failed, hit the
// round cap, came back empty, was rated down, or ended in a hand-off request. Grouping and pack suggestions
// happen in src/lib/insights/unanswered.ts; this module only speaks SQL. Tenant path only.

export type UnansweredWhy =
  | "failed"
  | "outage"
  | "round_cap"
  | "empty"
  | "rated_down"
  | "handoff"
  | "not_found";

/**
 * Failures of the model server rather than of what the bot knows: listed apart, since no answer written or
 * pack switched on would have helped.
 */
const OUTAGE_REASONS = [
  "model_error",
  "model_busy",
  "model_timeout",
  "idle_timeout",
  "first_byte_timeout",
  "interrupted",
];

export type UnansweredRow = {
  questionId: string;
  question: string;
  answerId: string;
  conversationId: string;
  at: Date;
  why: UnansweredWhy;
};

/** The pack whose tool call means "the visitor wants a person" (src/lib/tools/packs/request-human.ts). */
export const HANDOFF_PACK_ID = "request_human";

/**
 * Each assistant answer since `since` that counts as not handled, paired with the visitor question it
 * answered (the newest visitor message of the conversation at or before the answer). Questions an admin
 * marked handled are left out. Newest first, at most `limit`.
 */
export async function unansweredCandidates(
  tx: TenantTx,
  tenantId: string,
  opts: { since: Date; limit: number },
): Promise<UnansweredRow[]> {
  const rows = await rowsOf<Omit<UnansweredRow, "at"> & { at: string | Date; answeredLater?: boolean }>(
    tx,
    sql`
    select * from (
      select q.id as "questionId", q.content as question, a.id as "answerId",
        a.conversation_id as "conversationId", a.created_at as at,
        case
          when exists (select 1 from tool_runs r
                       where r.tenant_id = a.tenant_id and r.message_id = a.id and r.pack_id = ${HANDOFF_PACK_ID})
            then 'handoff'
          when f.rating = 'down' then 'rated_down'
          when exists (select 1 from tool_runs r
                       where r.tenant_id = a.tenant_id and r.message_id = a.id and r.pack_id = 'search_knowledge'
                         and r.result like '{"found":false%')
            then 'not_found'
          when a.reason = 'round_cap' then 'round_cap'
          when a.reason = 'empty' then 'empty'
          when a.status in ('failed', 'partial') and a.reason = any(${sql.param(OUTAGE_REASONS)}::text[]) then 'outage'
          when a.status = 'failed' and coalesce(a.reason, '') <> 'disconnected' then 'failed'
        end as why,
        -- A failure the visitor then retried into a whole answer (no new question in between) was answered.
        exists (
          select 1 from messages b
          where b.tenant_id = a.tenant_id and b.conversation_id = a.conversation_id and b.role = 'assistant'
            and b.status = 'complete' and (b.created_at, b.id) > (a.created_at, a.id)
            and not exists (select 1 from messages u2
                            where u2.tenant_id = a.tenant_id and u2.conversation_id = a.conversation_id
                              and u2.role = 'user' and u2.created_at > a.created_at and u2.created_at <= b.created_at
                              and u2.id <> q.id)
        ) as "answeredLater"
      from messages a
      join lateral (
        select u.id, u.content from messages u
        where u.tenant_id = a.tenant_id and u.conversation_id = a.conversation_id and u.role = 'user'
          and u.created_at <= a.created_at
        order by u.created_at desc, u.id desc
        limit 1
      ) q on true
      left join message_feedback f on f.tenant_id = a.tenant_id and f.message_id = a.id
      where a.tenant_id = ${tenantId} and a.role = 'assistant'
        and a.created_at >= ${opts.since.toISOString()}::timestamptz
        and not exists (select 1 from unanswered_handled h where h.tenant_id = a.tenant_id and h.message_id = q.id)
    ) x
    where x.why is not null and not (x.why in ('failed', 'outage') and x."answeredLater")
    order by x.at desc
    limit ${opts.limit}`,
  );
  return rows.map(({ answeredLater: _later, ...r }) => ({ ...r, at: new Date(r.at) }));
}

/**
 * Pairs (by index into `texts`) of questions that read almost the same, by pg_trgm's trigram similarity of
 * their lower-cased text. The caller joins pairs into groups.
 */
export async function similarPairs(
  tx: TenantTx,
  texts: string[],
  threshold: number,
): Promise<[number, number][]> {
  if (texts.length < 2) return [];
  const rows = await rowsOf<{ a: number; b: number }>(
    tx,
    sql`with q as (select t, i::int - 1 as i from unnest(${sql.param(texts)}::text[]) with ordinality as u(t, i))
        select x.i as a, y.i as b from q x join q y on x.i < y.i
        where similarity(lower(x.t), lower(y.t)) >= ${threshold}`,
  );
  return rows.map((r) => [Number(r.a), Number(r.b)]);
}

/** Marks visitor questions handled; ids that are not this tenant's visitor messages are ignored (RLS). */
export async function markQuestionsHandled(
  tx: TenantTx,
  tenantId: string,
  questionIds: string[],
  userId: string,
): Promise<number> {
  if (questionIds.length === 0) return 0;
  const rows = await rowsOf<{ message_id: string }>(
    tx,
    sql`insert into unanswered_handled (message_id, tenant_id, handled_by)
        select m.id, m.tenant_id, ${userId}::uuid from messages m
        where m.tenant_id = ${tenantId} and m.role = 'user' and m.id = any(${sql.param(questionIds)}::uuid[])
        on conflict (message_id) do nothing
        returning message_id`,
  );
  return rows.length;
}
