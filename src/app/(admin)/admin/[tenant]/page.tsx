import type { Metadata } from "next";
import Link from "next/link";
import { Card, PageHeader } from "@/components/ui";
import { roleAtLeast } from "@/lib/auth/access";
import { requireTenant } from "@/lib/auth/guard";
import { loadOverview } from "@/lib/tenants/overview";
import { formatDateTime, nextBudgetMonth } from "@/shared/dates";
import { saveTimeZoneAction } from "./settings/actions";
import { TimeZoneOffer } from "./TimeZoneOffer";

export const metadata: Metadata = { title: "Overview" };

const nf = new Intl.NumberFormat("en");

export default async function OverviewPage({ params }: { params: Promise<{ tenant: string }> }) {
  const { tenant: slug } = await params;
  const ctx = await requireTenant(slug);
  const { tenant } = ctx;
  const { items, budget, visitor } = await loadOverview(ctx);
  const remaining = items.filter((i) => !i.done).length;

  return (
    <div className="max-w-3xl space-y-6">
      <PageHeader
        title={tenant.name}
        description={
          !visitor.answers
            ? `Visitors get no answers right now. ${remaining} step${remaining === 1 ? "" : "s"} left to set up.`
            : remaining === 0
              ? "Everything is set up."
              : `${remaining} step${remaining === 1 ? "" : "s"} left to set up.`
        }
      />
      {tenant.status === "suspended" ? (
        <p role="alert" className="card border-danger-600 text-sm">
          <strong>This business is suspended by the platform operator.</strong> The chat widget does not
          answer visitors until it is resumed. Contact the operator of this installation.
        </p>
      ) : null}
      {budget.exhausted ? (
        <p role="alert" className="card border-danger-600 text-sm">
          <strong>This month&apos;s token budget is used up</strong> ({nf.format(budget.used)} of{" "}
          {nf.format(budget.limit ?? 0)} tokens). The widget tells visitors the assistant is unavailable until
          the budget resets on {formatDateTime(nextBudgetMonth(), { tz: tenant.timeZone })} or the operator
          raises it.
        </p>
      ) : null}
      {roleAtLeast(ctx.role, "admin") ? (
        <TimeZoneOffer
          action={saveTimeZoneAction.bind(null, tenant.slug)}
          zone={tenant.timeZone}
          open={tenant.timeZoneChosenAt === null}
        />
      ) : null}
      <Card id="visitor" title="What a visitor gets now">
        <p className="text-sm">{visitor.text}</p>
      </Card>
      <Card id="setup" title="Setup checklist">
        <ol className="space-y-3">
          {items.map((item) => (
            <li key={item.title} className="flex gap-3">
              <span
                aria-hidden="true"
                className={`mt-0.5 inline-flex size-6 shrink-0 items-center justify-center rounded-full text-sm font-bold text-white ${item.done ? "bg-ok-600" : "bg-slate-400"}`}
              >
                {item.done ? "✓" : ""}
              </span>
              <div>
                <p className="font-semibold">
                  {item.title} <span className="sr-only">{item.done ? "(done)" : "(to do)"}</span>
                </p>
                <p className="text-sm muted">{item.detail}</p>
                {item.href && item.fix ? (
                  <Link href={item.href} className="text-sm font-semibold underline">
                    {item.fix}
                  </Link>
                ) : null}
              </div>
            </li>
          ))}
        </ol>
      </Card>
      <Card id="usage" title="This month">
        <p className="text-sm">
          {nf.format(budget.used)} tokens used
          {budget.limit !== null ? ` of ${nf.format(budget.limit)}` : " (no monthly budget)"}.
        </p>
      </Card>
    </div>
  );
}
