import "server-only";
import { asc, type SQL, sql } from "drizzle-orm";
import { addDays, dayIn, startOfDayIn, zoneOr } from "@/shared/dates";
import { type Db, rowsOf, type TenantTx } from "../client";
import { tenants } from "../schema";

// Usage numbers for the Usage pages, aggregated in SQL by day in the business's time zone (UTC for the
// platform total). A tenant's numbers are read inside its
// forTenant transaction; the operator's per-tenant view and the platform total read through db.platform.
// Each statement starts with tenant_id = … and a time range, so it walks messages_tenant_created_idx,
// tool_runs_tenant_created_idx and conversations_tenant_activity_idx rather than the whole table.

/** null tenantId: every tenant together (operator only, through db.platform). Days are counted in `timeZone`. */
export type UsageScope = { tenantId: string | null; timeZone?: string };

export type DayUsage = {
  day: string;
  conversations: number;
  visitorMessages: number;
  botMessages: number;
  messages: number;
  promptTokens: number;
  completionTokens: number;
  tokens: number;
  /** Of those tokens, the ones estimated from text because the provider never reported usage. */
  estimatedTokens: number;
};

export type PackUsage = {
  packId: string;
  calls: number;
  failures: number;
  /** 0..1 */
  failureRate: number;
  medianMs: number;
};

export type UsageReport = {
  /** Days, today included. */
  period: number;
  /** First day included (its midnight in `timeZone`) and the end of today there (exclusive). */
  since: Date;
  until: Date;
  timeZone: string;
  days: DayUsage[];
  packs: PackUsage[];
  totals: { conversations: number; messages: number; tokens: number; toolCalls: number };
  /** Tokens counted against this calendar month's budget (usage_monthly survives retention purges). */
  month: { month: string; tokens: number; estimatedTokens: number };
  /** Tokens of the period's answers whose usage was estimated, not reported by the provider. */
  estimatedTokens: number;
  /** Answers the figure check read a figure in, and of those the ones with a figure no source stated. */
  figures: { checked: number; unsupported: number };
};

/** The window of a period: today and the N-1 days before it, as calendar days in `tz` (DST days included). */
export function periodWindow(
  period: number,
  now: Date = new Date(),
  tz = "UTC",
): { since: Date; until: Date; days: string[] } {
  const today = dayIn(now, tz);
  const days = Array.from({ length: period }, (_, i) => addDays(today, i - period + 1));
  return { since: startOfDayIn(days[0]!, tz), until: startOfDayIn(addDays(today, 1), tz), days };
}

type Reader = Db | TenantTx;

function tenantIs(column: string, scope: UsageScope): SQL {
  return scope.tenantId ? sql`${sql.raw(column)} = ${scope.tenantId} and` : sql``;
}

/** Everything the Usage page shows for one tenant (or the platform) over the last `period` days. */
export async function usageReport(
  db: Reader,
  scope: UsageScope,
  opts: { period: number; now?: Date },
): Promise<UsageReport> {
  const now = opts.now ?? new Date();
  const tz = zoneOr(scope.timeZone);
  const { since, until, days: dayKeys } = periodWindow(opts.period, now, tz);
  const from = since.toISOString();
  const to = until.toISOString();

  // A conversation that started inside the window was also active inside it, so the condition on
  // last_activity_at (the indexed column) is implied and lets the index narrow the scan.
  const convRows = await rowsOf<{ day: string; n: number }>(
    db,
    sql`select to_char(c.started_at at time zone ${tz}, 'YYYY-MM-DD') as day,
          count(*)::int as n
        from conversations c
        where ${tenantIs("c.tenant_id", scope)} c.last_activity_at >= ${from}::timestamptz
          and c.started_at >= ${from}::timestamptz and c.started_at < ${to}::timestamptz
        group by 1`,
  );
  const msgRows = await rowsOf<{
    day: string;
    visitor: number;
    bot: number;
    prompt: number;
    completion: number;
    estimated: number;
    checked: number;
    unsupported: number;
  }>(
    db,
    sql`select to_char(m.created_at at time zone ${tz}, 'YYYY-MM-DD') as day,
          (count(*) filter (where m.role = 'user'))::int as visitor,
          (count(*) filter (where m.role = 'assistant'))::int as bot,
          coalesce(sum(m.prompt_tokens), 0)::float8 as prompt,
          coalesce(sum(m.completion_tokens), 0)::float8 as completion,
          coalesce(sum(m.prompt_tokens + m.completion_tokens) filter (where m.usage_estimated), 0)::float8 as estimated,
          (count(*) filter (where m.figure_check is not null))::int as checked,
          (count(*) filter (where (m.figure_check->>'unsupported')::int > 0))::int as unsupported
        from messages m
        where ${tenantIs("m.tenant_id", scope)} m.created_at >= ${from}::timestamptz and m.created_at < ${to}::timestamptz
        group by 1`,
  );
  const packRows = await rowsOf<{ packId: string; calls: number; failures: number; medianMs: number | null }>(
    db,
    sql`select r.pack_id as "packId", count(*)::int as calls,
          (count(*) filter (where r.outcome <> 'ok'))::int as failures,
          percentile_cont(0.5) within group (order by r.duration_ms)::float8 as "medianMs"
        from tool_runs r
        where ${tenantIs("r.tenant_id", scope)} r.created_at >= ${from}::timestamptz and r.created_at < ${to}::timestamptz
        group by r.pack_id
        order by calls desc, r.pack_id`,
  );
  const month = now.toISOString().slice(0, 7);
  const [monthRow] = await rowsOf<{ tokens: number; estimated: number }>(
    db,
    sql`select coalesce(sum(u.prompt_tokens + u.completion_tokens), 0)::float8 as tokens,
          coalesce(sum(u.estimated_tokens), 0)::float8 as estimated
        from usage_monthly u
        where ${tenantIs("u.tenant_id", scope)} u.month = ${month}`,
  );

  const conv = new Map(convRows.map((r) => [r.day, Number(r.n)]));
  const msgs = new Map(msgRows.map((r) => [r.day, r]));
  const days: DayUsage[] = [];
  for (const day of dayKeys) {
    const m = msgs.get(day);
    const visitorMessages = Number(m?.visitor ?? 0);
    const botMessages = Number(m?.bot ?? 0);
    const promptTokens = Number(m?.prompt ?? 0);
    const completionTokens = Number(m?.completion ?? 0);
    days.push({
      day,
      conversations: conv.get(day) ?? 0,
      visitorMessages,
      botMessages,
      messages: visitorMessages + botMessages,
      promptTokens,
      completionTokens,
      tokens: promptTokens + completionTokens,
      estimatedTokens: Number(m?.estimated ?? 0),
    });
  }
  const packs = packRows.map((r) => {
    const calls = Number(r.calls);
    const failures = Number(r.failures);
    return {
      packId: r.packId,
      calls,
      failures,
      failureRate: calls > 0 ? failures / calls : 0,
      medianMs: Number(r.medianMs ?? 0),
    };
  });
  const sum = (f: (d: DayUsage) => number) => days.reduce((a, d) => a + f(d), 0);
  return {
    period: opts.period,
    since,
    until,
    timeZone: tz,
    days,
    packs,
    totals: {
      conversations: sum((d) => d.conversations),
      messages: sum((d) => d.messages),
      tokens: sum((d) => d.tokens),
      toolCalls: packs.reduce((a, p) => a + p.calls, 0),
    },
    month: {
      month,
      tokens: Number(monthRow?.tokens ?? 0),
      estimatedTokens: Number(monthRow?.estimated ?? 0),
    },
    estimatedTokens: msgRows.reduce((n, r) => n + Number(r.estimated ?? 0), 0),
    figures: figureCounts(msgRows),
  };
}

/** The figure check's counts of the period, from the per-day message rows. */
function figureCounts(rows: { checked: number; unsupported: number }[]): UsageReport["figures"] {
  const sum = (f: (r: (typeof rows)[number]) => number) => rows.reduce((n, r) => n + Number(f(r) ?? 0), 0);
  return { checked: sum((r) => r.checked), unsupported: sum((r) => r.unsupported) };
}

/** The tenant's monthly token budget: its own setting, else the platform default; 0 means no limit (null). */
export function monthlyBudget(
  tenant: { monthlyTokenBudget: number | null },
  platformDefault: number,
): number | null {
  const budget = tenant.monthlyTokenBudget ?? platformDefault;
  return budget > 0 ? budget : null;
}

/** Platform path, operator only: every tenant for the Usage page's picker, by name. */
export async function tenantsForUsagePicker(db: Db) {
  return db
    .select({
      id: tenants.id,
      slug: tenants.slug,
      name: tenants.name,
      monthlyTokenBudget: tenants.monthlyTokenBudget,
    })
    .from(tenants)
    .orderBy(asc(tenants.name), asc(tenants.slug));
}
