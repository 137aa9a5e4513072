import type { Metadata } from "next";
import { EstimatesLegend, PeriodSwitch, parsePeriod, UsageView } from "@/components/charts";
import { Card, PageHeader } from "@/components/ui";
import { requireTenant, roleAtLeast } from "@/lib/auth/guard";
import { satisfaction } from "@/lib/db/queries/feedback";
import { monthlyBudget, usageReport } from "@/lib/db/queries/insights-usage";
import { RETENTION_MAX_DAYS, RETENTION_MIN_DAYS } from "@/lib/db/queries/retention";
import { env } from "@/lib/env";
import { packLabel } from "../conversations/display";
import { saveRetentionAction } from "./actions";
import { RetentionForm } from "./RetentionForm";
import { Satisfaction } from "./Satisfaction";

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
  const [report, rated] = await ctx.db.forTenant(ctx.tenant.id, async (tx) => {
    const r = await usageReport(tx, { tenantId: ctx.tenant.id }, { period });
    return [r, await satisfaction(tx, ctx.tenant.id, { since: r.since, until: r.until })] as const;
  });
  const base = `/admin/${ctx.tenant.slug}/usage`;
  const canEdit = roleAtLeast(ctx.role, "admin");
  return (
    <div className="max-w-5xl space-y-6">
      <PageHeader
        title="Usage"
        description="Conversations, messages, tokens and tool calls by day (UTC)."
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
      <Card id="retention" title="Data & retention">
        {canEdit ? (
          <RetentionForm
            action={saveRetentionAction.bind(null, ctx.tenant.slug)}
            days={ctx.tenant.retentionDays}
            min={RETENTION_MIN_DAYS}
            max={RETENTION_MAX_DAYS}
          />
        ) : (
          <p className="text-sm">
            Conversations are kept for <strong>{ctx.tenant.retentionDays} days</strong> after their last
            message. Only an admin or owner can change this.
          </p>
        )}
      </Card>
    </div>
  );
}
