import type { Metadata } from "next";
import Link from "next/link";
import { connection } from "next/server";
import { EstimatesLegend, PeriodSwitch, parsePeriod, UsageView } from "@/components/charts";
import { PageHeader } from "@/components/ui";
import { requireOperator } from "@/lib/auth/guard";
import { monthlyBudget, tenantsForUsagePicker, usageReport } from "@/lib/db/queries/insights-usage";
import { env } from "@/lib/env";
import { findPack } from "@/lib/tools/index";
import { isUuid } from "@/shared/parse";

export const metadata: Metadata = { title: "Usage (operator)" };

// The operator's view spans tenants, so it reads through db.platform: one tenant picked from the list, or the
// platform total when none is picked.
export default async function OperatorUsagePage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  await connection(); // per request, never prerendered at build time (no database or secrets there)
  const { db } = await requireOperator();
  const sp = await searchParams;
  const period = parsePeriod(sp.days);
  const all = await tenantsForUsagePicker(db.platform);
  const wanted = isUuid(sp.tenant) ? sp.tenant : null;
  const tenant = wanted ? (all.find((t) => t.id === wanted) ?? null) : null;
  const report = await usageReport(db.platform, { tenantId: tenant?.id ?? null }, { period });
  const href = (p: number) =>
    `/admin/operator/usage?${new URLSearchParams({ ...(tenant ? { tenant: tenant.id } : {}), days: String(p) })}`;
  return (
    <div className="space-y-6">
      <PageHeader
        title={tenant ? `Usage: ${tenant.name}` : "Usage: all businesses"}
        description="Conversations, messages, tokens and tool calls by day (UTC)."
        actions={<PeriodSwitch current={period} href={href} />}
      />
      <form method="get" className="card flex flex-wrap items-end gap-3">
        <div>
          <label className="label" htmlFor="usage-tenant">
            Business
          </label>
          <select id="usage-tenant" name="tenant" className="input" defaultValue={tenant?.id ?? ""}>
            <option value="">All businesses (platform total)</option>
            {all.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name} ({t.slug})
              </option>
            ))}
          </select>
        </div>
        <input type="hidden" name="days" value={period} />
        <button type="submit" className="btn">
          Show
        </button>
        {wanted && !tenant ? (
          <p role="alert" className="field-error">
            That business no longer exists; showing the platform total.
          </p>
        ) : null}
        {tenant ? (
          <Link href={`/admin/operator/${tenant.id}`} className="text-sm underline">
            Manage {tenant.name}
          </Link>
        ) : null}
      </form>
      <UsageView
        report={report}
        budget={tenant ? monthlyBudget(tenant, env().MICHI_DEFAULT_MONTHLY_TOKENS) : null}
        packLabel={(id) => findPack(id)?.label ?? id}
      />
      <EstimatesLegend report={report} />
    </div>
  );
}
