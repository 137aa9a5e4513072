import type { Metadata } from "next";
import Link from "next/link";
import { EstimatesLegend, PeriodSwitch, parsePeriod, UsageView } from "@/components/charts";
import { PageHeader } from "@/components/ui";
import { requireTenant } from "@/lib/auth/guard";
import { satisfaction } from "@/lib/db/queries/feedback";
import { scopeReport } from "@/lib/db/queries/insights-scope";
import { monthlyBudget, usageReport } from "@/lib/db/queries/insights-usage";
import { liveMetrics } from "@/lib/db/queries/live-metrics";
import { env } from "@/lib/env";
import { packLabel } from "../conversations/display";
import { FigureChecks } from "./FigureChecks";
import { LiveFigures } from "./LiveFigures";
import { Satisfaction } from "./Satisfaction";
import { ScopeReport } from "./ScopeReport";

export const metadata: Metadata = { title: "Usage" };

export default async function UsagePage({
  params,
  searchParams,
}: {
  params: Promise<{ tenant: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { tenant: slug } = await params;
  const ctx = await requireTenant(slug);
  const period = parsePeriod((await searchParams).days);
  const who = { tenantId: ctx.tenant.id, timeZone: ctx.tenant.timeZone };
  const [report, rated, live, scope] = await ctx.db.forTenant(ctx.tenant.id, async (tx) => {
    const r = await usageReport(tx, who, { period });
    const range = { since: r.since, until: r.until };
    return [
      r,
      await satisfaction(tx, ctx.tenant.id, range),
      await liveMetrics(tx, ctx.tenant.id, range),
      await scopeReport(tx, who),
    ] as const;
  });
  const base = `/admin/${ctx.tenant.slug}/usage`;
  return (
    <div className="max-w-5xl space-y-6">
      <PageHeader
        title="Usage"
        description={`Conversations, messages, tokens and tool calls by day (${ctx.tenant.timeZone.replaceAll("_", " ")}).`}
        actions={<PeriodSwitch current={period} href={(p) => `${base}?days=${p}`} />}
      />
      <UsageView
        report={report}
        budget={monthlyBudget(ctx.tenant, env().MICHI_DEFAULT_MONTHLY_TOKENS)}
        packLabel={packLabel}
      />
      <EstimatesLegend report={report} />
      <Satisfaction
        figures={rated}
        period={period}
        conversationsHref={`/admin/${ctx.tenant.slug}/conversations`}
      />
      <FigureChecks figures={report.figures} period={period} />
      <ScopeReport weeks={scope} conversationsHref={`/admin/${ctx.tenant.slug}/conversations`} />
      <LiveFigures figures={live} period={period} liveHref={`/admin/${ctx.tenant.slug}/inbox/live`} />
      <p className="muted text-sm">
        How long conversations are kept is set under{" "}
        <Link className="underline" href={`/admin/${ctx.tenant.slug}/settings`}>
          Data &amp; retention
        </Link>
        .
      </p>
    </div>
  );
}
