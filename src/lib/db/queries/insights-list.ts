import "server-only";
import { type SQL, sql } from "drizzle-orm";
import { z } from "zod";
import { containsPattern, parseSearch } from "@/shared/search-terms";
import { rowsOf, type TenantTx } from "../client";
import type { VerifiedVisitor } from "../schema";
import { SCOPE_KINDS, scopeCondition } from "./insights-scope";

// The admin's conversation log: one page of conversations, newest activity first, with filters. Tenant path
// only (a TenantTx), and every statement also names the tenant so the planner can use the indexes that lead
// with tenant_id (conversations_tenant_activity_idx, messages_tenant_conversation_idx, …).

/**
 * A conversation's outcome is read from its LAST assistant message (earlier turns may have failed and been
 * retried by the visitor; what matters to the admin is how it ended):
 *   status complete                                   → "answered"
 *   status partial                                    → "partial"
 *   status failed, reason starting with "rate_limited" or "budget", or the provider's own 429 ("model_busy")
 *                                                     → "rate_limited"
 *   any other failed                                  → "failed"
 *   no assistant message yet                          → null (the list shows "no answer"; no filter matches it)
 */
export const OUTCOMES = ["answered", "partial", "failed", "rate_limited"] as const;
export type Outcome = (typeof OUTCOMES)[number];

const OUTCOME_SQL = sql.raw(`case
    when m.status = 'complete' then 'answered'
    when m.status = 'partial' then 'partial'
    when starts_with(coalesce(m.reason, ''), 'rate_limited') or starts_with(coalesce(m.reason, ''), 'budget')
      or m.reason = 'model_busy' then 'rate_limited'
    else 'failed'
  end`);

/** A calendar day as YYYY-MM-DD that really exists (Date.parse would turn 2025-02-30 into 2 March). */
export const isoDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "Use the format YYYY-MM-DD.")
  .refine((v) => {
    const t = Date.parse(`${v}T00:00:00Z`);
    return !Number.isNaN(t) && new Date(t).toISOString().slice(0, 10) === v;
  }, "Not a real date.");

/** The list's filters as they arrive in the page's search params; empty strings mean "not set". */
export const listFiltersSchema = z.object({
  from: z.union([isoDay, z.literal("")]).optional(),
  to: z.union([isoDay, z.literal("")]).optional(),
  pack: z
    .string()
    .max(64)
    .regex(/^[a-z0-9_]*$/)
    .optional(),
  outcome: z.union([z.enum(OUTCOMES), z.literal("")]).optional(),
  q: z.string().max(200).optional(),
  /** Conversations with at least one answer the visitor rated this way. */
  rating: z.union([z.enum(["up", "down"]), z.literal("")]).optional(),
  /** Where the person wrote: the site's widget or a messaging channel (drizzle/0029). */
  channel: z.union([z.enum(["web", "whatsapp", "telegram"]), z.literal("")]).optional(),
  /** Conversations with an answer of this kind of the Usage page's scope report (insights-scope.ts). */
  scope: z.union([z.enum(SCOPE_KINDS), z.literal("")]).optional(),
});
export type ListFilters = z.infer<typeof listFiltersSchema>;

export type ConversationSummary = {
  id: string;
  visitorId: string;
  origin: string;
  pageUrl: string;
  locale: string;
  /** Who the business's site vouched for (a signed identity token); null for an anonymous visitor. */
  verifiedVisitor: VerifiedVisitor | null;
  startedAt: Date;
  lastActivityAt: Date;
  outcome: Outcome | null;
  messages: number;
  tokens: number;
  /** Some of the tokens are estimates (the provider never reported usage for an answer). */
  tokensEstimated: boolean;
  packs: string[];
  preview: string;
};

export type ConversationPage = { items: ConversationSummary[]; nextCursor: string | null };

// The cursor carries the row's exact timestamp as Postgres prints it (microseconds), not a JS Date, which
// would round to milliseconds and skip or repeat rows that share a millisecond.
const CURSOR =
  /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z)\|([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

export function encodeCursor(ts: string, id: string): string {
  return Buffer.from(`${ts}|${id}`, "utf8").toString("base64url");
}

/** A cursor that does not decode is treated as "from the top", never as an error page. */
export function decodeCursor(raw: string | null | undefined): { ts: string; id: string } | null {
  if (!raw || raw.length > 200) return null;
  const m = CURSOR.exec(Buffer.from(raw, "base64url").toString("utf8"));
  return m ? { ts: m[1]!, id: m[2]! } : null;
}

export function dayStart(d: string): Date {
  return new Date(`${d}T00:00:00.000Z`);
}

export function nextDayStart(d: string): Date {
  return new Date(dayStart(d).getTime() + 86_400_000);
}

type Row = Omit<ConversationSummary, "packs" | "startedAt" | "lastActivityAt"> & {
  startedAt: Date | string;
  lastActivityAt: Date | string;
  packs: string;
  cursorTs: string;
};

/**
 * One page of the tenant's conversations. Date range: a conversation is listed when it was active during the
 * range, i.e. it started before the range ended and its last activity is on or after the range's first day
 * (days are UTC). Search: one message of the conversation contains every included term and no excluded one, as
 * substrings of the accent- and case-folded text stored beside each message (content_search, drizzle/0005),
 * folded the same way (michi_search_fold). Under RLS Postgres scans that column rather than use its trigram
 * index (LIKE is not leakproof); without the per-row folding the scan stays short (npm run bench: db.searchMs).
 */
export async function listConversations(
  tx: TenantTx,
  tenantId: string,
  filters: ListFilters,
  opts: { cursor?: string | null; limit?: number } = {},
): Promise<ConversationPage> {
  const limit = Math.min(Math.max(opts.limit ?? 25, 1), 100);
  const where: SQL[] = [sql`c.tenant_id = ${tenantId}`];
  const cursor = decodeCursor(opts.cursor);
  if (cursor) where.push(sql`(c.last_activity_at, c.id) < (${cursor.ts}::timestamptz, ${cursor.id}::uuid)`);
  if (filters.from)
    where.push(sql`c.last_activity_at >= ${dayStart(filters.from).toISOString()}::timestamptz`);
  if (filters.to) where.push(sql`c.started_at < ${nextDayStart(filters.to).toISOString()}::timestamptz`);
  if (filters.pack)
    where.push(sql`exists (select 1 from tool_runs r
      where r.tenant_id = c.tenant_id and r.conversation_id = c.id and r.pack_id = ${filters.pack})`);
  if (filters.outcome) where.push(sql`la.outcome = ${filters.outcome}`);
  if (filters.channel) where.push(sql`c.channel = ${filters.channel}`);
  if (filters.scope)
    where.push(sql`exists (select 1 from messages sm
      where sm.tenant_id = c.tenant_id and sm.conversation_id = c.id and sm.role = 'assistant'
        and sm.status = 'complete' and ${scopeCondition(filters.scope, "sm")})`);
  if (filters.rating)
    where.push(sql`exists (select 1 from message_feedback f
      where f.tenant_id = c.tenant_id and f.conversation_id = c.id and f.rating = ${filters.rating})`);
  const terms = parseSearch(filters.q ?? "");
  if (terms.include.length + terms.exclude.length > 0) {
    const has = (term: string) => sql`s.content_search like michi_search_fold(${containsPattern(term)})`;
    const conds = [...terms.include.map(has), ...terms.exclude.map((term) => sql`not ${has(term)}`)];
    where.push(sql`exists (select 1 from messages s
      where s.tenant_id = c.tenant_id and s.conversation_id = c.id and ${sql.join(conds, sql` and `)})`);
  }

  // The page is chosen first (filters, order, limit) and only its rows get the per-conversation summaries:
  // joined before the limit, the planner computes them for every conversation of the tenant and sorts after.
  // The outcome is needed before the limit only when it is filtered on.
  const lastAnswer = (alias: string) => sql`left join lateral (
      select ${OUTCOME_SQL} as outcome
      from messages m
      where m.tenant_id = ${sql.raw(alias)}.tenant_id and m.conversation_id = ${sql.raw(alias)}.id
        and m.role = 'assistant'
      order by m.created_at desc, m.id desc
      limit 1
    ) la on true`;
  const byOutcome = Boolean(filters.outcome);
  const rows = await rowsOf<Row>(
    tx,
    sql`
    select p.id, p.visitor_id as "visitorId", p.origin, p.page_url as "pageUrl", p.locale,
      p.verified_visitor as "verifiedVisitor",
      p.started_at as "startedAt", p.last_activity_at as "lastActivityAt",
      to_char(p.last_activity_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as "cursorTs",
      ${byOutcome ? sql`p.outcome` : sql`la.outcome`} as outcome,
      st.messages, st.tokens, st.estimated as "tokensEstimated", coalesce(fu.preview, '') as preview, coalesce(tr.packs, '') as packs
    from (
      select c.*${byOutcome ? sql`, la.outcome` : sql``}
      from conversations c
      ${byOutcome ? lastAnswer("c") : sql``}
      where ${sql.join(where, sql` and `)}
      order by c.last_activity_at desc, c.id desc
      limit ${limit + 1}
    ) p
    ${byOutcome ? sql`` : lastAnswer("p")}
    left join lateral (
      select count(*)::int as messages, coalesce(sum(m.prompt_tokens + m.completion_tokens), 0)::float8 as tokens,
        coalesce(bool_or(m.usage_estimated), false) as estimated
      from messages m
      where m.tenant_id = p.tenant_id and m.conversation_id = p.id
    ) st on true
    left join lateral (
      select left(m.content, 160) as preview
      from messages m
      where m.tenant_id = p.tenant_id and m.conversation_id = p.id and m.role = 'user'
      order by m.created_at, m.id
      limit 1
    ) fu on true
    left join lateral (
      select string_agg(distinct r.pack_id, ',' order by r.pack_id) as packs
      from tool_runs r
      where r.tenant_id = p.tenant_id and r.conversation_id = p.id
    ) tr on true
    order by p.last_activity_at desc, p.id desc`,
  );

  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map(({ cursorTs: _c, ...r }) => ({
      ...r,
      startedAt: new Date(r.startedAt),
      lastActivityAt: new Date(r.lastActivityAt),
      messages: Number(r.messages),
      tokens: Number(r.tokens),
      tokensEstimated: r.tokensEstimated === true,
      packs: r.packs ? r.packs.split(",") : [],
    })),
    nextCursor: rows.length > limit && last ? encodeCursor(last.cursorTs, last.id) : null,
  };
}
