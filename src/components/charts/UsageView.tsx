import Link from "next/link";
import type { UsageReport } from "@/lib/insights/types";
import { formatDate, formatDateTime } from "@/shared/dates";
import { PERIODS, type Period } from "./periods";
import { UsageCharts } from "./UsageCharts";

// The body of a Usage page: period switch, totals, this month against the budget, then the charts. Shared by
// the tenant page and the operator's per-tenant and platform views.

const n = (v: number) => v.toLocaleString("en-US");

/** "2026-11" → "November 2026". */
function monthName(month: string): string {
  const [y, m] = month.split("-").map(Number);
  return new Date(Date.UTC(y!, m! - 1, 1)).toLocaleDateString("en-GB", {
    month: "long",
    year: "numeric",
    timeZone: "UTC",
  });
}

/** The instant the month after "2026-11" begins (UTC, as the budget counts). */
function nextMonthOf(month: string): Date {
  const [y, m] = month.split("-").map(Number);
  return new Date(Date.UTC(y!, m!, 1));
}

function daysInMonth(month: string): number {
  const [y, m] = month.split("-").map(Number);
  return new Date(Date.UTC(y!, m!, 0)).getUTCDate();
}

export function PeriodSwitch({ current, href }: { current: Period; href: (p: Period) => string }) {
  return (
    <nav aria-label="Period" className="flex gap-1">
      {PERIODS.map((p) => (
        <Link
          key={p}
          href={href(p)}
          aria-current={p === current ? "page" : undefined}
          className="rounded-lg border border-[var(--border)] px-3 py-1.5 text-sm font-medium aria-[current=page]:bg-brand-700 aria-[current=page]:text-white"
        >
          Last {p} days
        </Link>
      ))}
    </nav>
  );
}

export function UsageView({
  report,
  budget,
  packLabel,
}: {
  report: UsageReport;
  /** The monthly token budget, or null where none applies (the platform total). */
  budget: number | null;
  packLabel: (packId: string) => string;
}) {
  const used = report.month.tokens;
  const share = budget && budget > 0 ? Math.min(used / budget, 1) : null;
  const stats = [
    { label: "Conversations", value: report.totals.conversations },
    { label: "Messages", value: report.totals.messages },
    { label: "Tokens", value: report.totals.tokens, estimated: report.estimatedTokens > 0 },
    { label: "Tool calls", value: report.totals.toolCalls },
  ];
  return (
    <div className="space-y-6">
      <section aria-labelledby="totals-title" className="card">
        <h2 id="totals-title" className="text-lg font-semibold">
          Last {report.period} days
        </h2>
        <p className="mb-3 text-sm muted" data-testid="period-explained">
          Today and the {report.period - 1} days before it ({formatDate(report.since, report.timeZone)} to{" "}
          {formatDate(new Date(report.until.getTime() - 1), report.timeZone)},{" "}
          {report.timeZone.replaceAll("_", " ")}), counted from the conversations still stored.
        </p>
        <dl className="grid grid-cols-2 gap-4 sm:grid-cols-4">
          {stats.map((s) => (
            <div key={s.label}>
              <dt className="text-sm muted">{s.label}</dt>
              <dd className="text-2xl font-bold tabular-nums">
                {"estimated" in s && s.estimated ? <Approx /> : null}
                {n(s.value)}
              </dd>
            </div>
          ))}
        </dl>
      </section>

      <section aria-labelledby="budget-title" className="card">
        <h2 id="budget-title" className="text-lg font-semibold">
          This month ({monthName(report.month.month)})
        </h2>
        <p className="mb-2 text-sm muted" data-testid="month-explained">
          The calendar month so far: what counts against your monthly budget. It keeps counting conversations
          that were deleted since, and starts again on{" "}
          {formatDateTime(nextMonthOf(report.month.month), { tz: report.timeZone })}, so it rarely equals the
          figure above.
        </p>
        {budget === null ? (
          <p>
            {report.month.estimatedTokens > 0 ? <Approx /> : null}
            <span className="text-2xl font-bold tabular-nums">{n(used)}</span> tokens used.
          </p>
        ) : (
          <>
            <p>
              {report.month.estimatedTokens > 0 ? <Approx /> : null}
              <span className="text-2xl font-bold tabular-nums">{n(used)}</span> of {n(budget)} tokens used
              {share !== null ? ` (${Math.round((used / budget) * 100)}%)` : ""}.
              {budget > 0 && used >= budget ? (
                <strong className="ml-1 text-danger-700 dark:text-red-300">
                  The budget is used up: the bot stops answering until next month.
                </strong>
              ) : null}
            </p>
            {share !== null ? (
              <meter
                aria-label="Share of the monthly token budget used"
                min={0}
                max={budget}
                low={budget * 0.75}
                high={budget * 0.9}
                optimum={0}
                value={Math.min(used, budget)}
                className="mt-2 block h-3 w-full"
              />
            ) : null}
          </>
        )}
      </section>

      <section aria-labelledby="charts-title" className="card">
        <h2 id="charts-title" className="mb-4 text-lg font-semibold">
          Per day
        </h2>
        <UsageCharts
          days={report.days}
          timeZone={report.timeZone}
          packs={report.packs.map((p) => ({ ...p, label: packLabel(p.packId) }))}
          dailyBudget={budget && budget > 0 ? Math.round(budget / daysInMonth(report.month.month)) : null}
        />
      </section>
    </div>
  );
}

/** The marker of a figure that includes estimated tokens; the legend (#estimates) says what that means. */
function Approx() {
  return (
    <a href="#estimates" title="Includes estimated tokens" className="mr-1 no-underline">
      ≈
    </a>
  );
}

/** The legend of the ≈ marker, shown only when some figure includes estimates. */
export function EstimatesLegend({ report }: { report: UsageReport }) {
  if (report.estimatedTokens <= 0 && report.month.estimatedTokens <= 0) return null;
  return (
    <p className="muted text-sm" id="estimates">
      ≈ {n(report.estimatedTokens)} tokens in this period and {n(report.month.estimatedTokens)} this month are
      estimates: the model server generated part of an answer but never reported its usage (a cut or failed
      stream), so they were counted from the text. Requests the server refused before answering cost nothing.
    </p>
  );
}
