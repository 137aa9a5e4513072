import "server-only";
import { type SQL, sql } from "drizzle-orm";
import { rowsOf, type TenantTx } from "../client";

// The scope report (issue 42): per week, the share of the bot's answers that cited sources or pack results,
// answered with neither, said they did not know, handed off to a person, or stated a figure no source stated.
// Each condition is one SQL predicate on an answer `m`, shared with the Conversations list's `scope` filter so
// a number on the Usage page links to exactly the conversations behind it.

export const SCOPE_KINDS = ["sourced", "neither", "unknown", "handoff", "figure"] as const;
export type ScopeKind = (typeof SCOPE_KINDS)[number];

const HANDOFF = "request_human";

// "I don't know" in the widget's five languages, as the stored folded text reads it (lower case, no accents).
const UNKNOWN_PATTERNS = [
  "%don't know%",
  "%don’t know%",
  "%do not know%",
  "%couldn't find%",
  "%could not find%",
  "%no information%",
  "%no lo se%",
  "%no tengo informacion%",
  "%je ne sais pas%",
  "%pas d'information%",
  "%weiss ich nicht%",
  "%weiß ich nicht%",
  "%keine informationen%",
  "%わかりません%",
  "%分かりません%",
  "%情報がありません%",
];

const sourcedRun = (m: string) => sql`exists (select 1 from tool_runs r
  where r.tenant_id = ${sql.raw(m)}.tenant_id and r.message_id = ${sql.raw(m)}.id and r.outcome = 'ok'
    and r.pack_id <> ${HANDOFF} and not (r.pack_id = 'search_knowledge' and r.result like '{"found":false%'))`;
const handoffRun = (m: string) => sql`exists (select 1 from tool_runs r
  where r.tenant_id = ${sql.raw(m)}.tenant_id and r.message_id = ${sql.raw(m)}.id and r.pack_id = ${HANDOFF})`;

/** The predicate on the answer aliased `m` (a row of messages) for one kind of the report. */
export function scopeCondition(kind: ScopeKind, m = "m"): SQL {
  switch (kind) {
    case "sourced":
      return sourcedRun(m);
    case "handoff":
      return handoffRun(m);
    case "neither":
      return sql`not ${sourcedRun(m)} and not ${handoffRun(m)}`;
    case "unknown":
      return sql`${sql.raw(m)}.content_search like any (${sql.param(UNKNOWN_PATTERNS)}::text[])`;
    case "figure":
      return sql`coalesce((${sql.raw(m)}.figure_check->>'unsupported')::int, 0) > 0`;
  }
}

export type ScopeWeek = { week: string; total: number } & Record<ScopeKind, number>;

/** The last `weeks` weeks (Monday first, in the business's time zone), newest first; weeks without answers left out. */
export async function scopeReport(
  tx: TenantTx,
  tenant: { tenantId: string; timeZone: string },
  weeks = 8,
): Promise<ScopeWeek[]> {
  const counts = SCOPE_KINDS.map(
    (k) => sql`(count(*) filter (where ${scopeCondition(k)}))::int as ${sql.identifier(k)}`,
  );
  return rowsOf<ScopeWeek>(
    tx,
    sql`select to_char(date_trunc('week', m.created_at at time zone ${tenant.timeZone}), 'YYYY-MM-DD') as week,
          count(*)::int as total, ${sql.join(counts, sql`, `)}
        from messages m
        where m.tenant_id = ${tenant.tenantId} and m.role = 'assistant' and m.status = 'complete'
          and m.created_at >= now() - make_interval(days => ${weeks * 7})
        group by 1 order by 1 desc`,
  );
}
