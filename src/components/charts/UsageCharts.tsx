"use client";

import { BarChartFigure, CHART_COLORS } from "./BarChartFigure";

// The Usage page's charts, shared by the tenant and the operator pages. Plain data in (what the server
// aggregated), so the page stays a server component and only the drawing runs in the browser.

export type UsageDay = {
  day: string;
  conversations: number;
  visitorMessages: number;
  botMessages: number;
  promptTokens: number;
  completionTokens: number;
  estimatedTokens: number;
};

export type UsagePack = {
  packId: string;
  label: string;
  calls: number;
  failures: number;
  failureRate: number;
  medianMs: number;
};

const pct = (v: number) => `${(v * 100).toFixed(v > 0 && v < 0.1 ? 1 : 0)}%`;
const ms = (v: number) => `${Math.round(v).toLocaleString("en-US")} ms`;

export function UsageCharts({
  days,
  packs,
  dailyBudget,
  timeZone,
}: {
  days: UsageDay[];
  /** The zone the days are counted in, named on each chart. */
  timeZone: string;
  packs: UsagePack[];
  /** The monthly budget spread evenly over the month's days, drawn as a line on the token chart. */
  dailyBudget: number | null;
}) {
  const rows = days.map((d) => {
    const tokens = d.promptTokens + d.completionTokens;
    // A day whose total includes estimates is marked ≈ (the legend under the page says what that means).
    return {
      ...d,
      tokens,
      tokensShown: `${d.estimatedTokens > 0 ? "≈ " : ""}${tokens.toLocaleString("en-US")}`,
    };
  });
  const dayLabel = `Day (${timeZone.replaceAll("_", " ")})`;
  const anyEstimated = days.some((d) => d.estimatedTokens > 0);
  const packRows = packs.map((p) => ({
    pack: p.label === p.packId ? p.packId : `${p.label} (${p.packId})`,
    succeeded: p.calls - p.failures,
    failures: p.failures,
    calls: p.calls,
    failureRate: p.failureRate,
    medianMs: p.medianMs,
  }));
  return (
    <div className="grid gap-8">
      <BarChartFigure
        title="Conversations per day"
        description={`Conversations that started on each day (${timeZone.replaceAll("_", " ")}).`}
        data={rows}
        xKey="day"
        xLabel={dayLabel}
        series={[{ key: "conversations", label: "Conversations", color: CHART_COLORS.teal }]}
      />
      <BarChartFigure
        title="Messages per day"
        data={rows}
        xKey="day"
        xLabel={dayLabel}
        series={[
          { key: "visitorMessages", label: "From visitors", color: CHART_COLORS.teal, stack: "m" },
          { key: "botMessages", label: "From the bot", color: CHART_COLORS.indigo, stack: "m" },
        ]}
      />
      <BarChartFigure
        title="Tokens per day"
        description={[
          "The scale follows your use.",
          dailyBudget !== null
            ? "The dashed line is the monthly budget spread evenly over the month's days."
            : "",
          anyEstimated ? "≈ in the numbers marks days that include estimated tokens." : "",
        ]
          .filter(Boolean)
          .join(" ")}
        data={rows}
        xKey="day"
        xLabel={dayLabel}
        series={[
          { key: "promptTokens", label: "Prompt tokens", color: CHART_COLORS.indigo, stack: "t" },
          { key: "completionTokens", label: "Completion tokens", color: CHART_COLORS.amber, stack: "t" },
        ]}
        extraColumns={[{ key: "tokensShown", label: "Total" }]}
        reference={dailyBudget !== null ? { value: dailyBudget, label: "daily share of budget" } : undefined}
      />
      {packRows.length > 0 ? (
        <BarChartFigure
          title="Tool calls per pack"
          description="Failures are calls that ended in an error, a timeout, invalid arguments or an unknown tool."
          data={packRows}
          xKey="pack"
          labelEveryBar
          xLabel="Pack"
          series={[
            { key: "succeeded", label: "Succeeded", color: CHART_COLORS.teal, stack: "c" },
            { key: "failures", label: "Failed", color: CHART_COLORS.red, stack: "c" },
          ]}
          extraColumns={[
            { key: "calls", label: "Calls" },
            { key: "failureRate", label: "Failure rate", format: pct },
            { key: "medianMs", label: "Median duration", format: ms },
          ]}
          tableInitiallyVisible
        />
      ) : (
        <p className="text-sm muted">No tool calls in this period.</p>
      )}
    </div>
  );
}
