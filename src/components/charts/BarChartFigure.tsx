"use client";

import { useId, useState } from "react";
import {
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";

// A bar chart with the same numbers in a table. The drawing is hidden from screen readers (an SVG of bars
// reads as noise); the table is always in the page for them, and a button shows it to everyone else.
// Colours come from CSS variables and mid-tone hues, so the chart reads on the light and the dark theme.

export type ChartSeries = {
  key: string;
  label: string;
  /** A CSS colour; mid-tones (500) read on both themes. */
  color: string;
  /** Series with the same stack id are stacked. */
  stack?: string;
};

export type ChartRow = Record<string, string | number>;

export const CHART_COLORS = {
  teal: "#14b8a6",
  indigo: "#818cf8",
  amber: "#f59e0b",
  red: "#ef4444",
} as const;

/** How far above the tallest bar a reference line may be and still stretch the axis to show it. */
const REFERENCE_REACH = 1.5;

const fmt = (n: unknown) => (typeof n === "number" ? n.toLocaleString("en-US") : String(n ?? ""));

export function BarChartFigure({
  title,
  description,
  data,
  xKey,
  xLabel,
  series,
  reference,
  extraColumns = [],
  height = 220,
  tableInitiallyVisible = false,
  labelEveryBar = false,
}: {
  title: string;
  description?: string;
  data: ChartRow[];
  xKey: string;
  xLabel: string;
  series: ChartSeries[];
  /** A horizontal line, e.g. the daily share of a budget. */
  reference?: { value: number; label: string };
  /** Columns only in the table (e.g. a failure rate next to counts); `format` turns the value into text. */
  extraColumns?: ExtraColumn[];
  height?: number;
  tableInitiallyVisible?: boolean;
  /** Categories rather than days: every bar keeps its label (slanted), none is skipped to save room. */
  labelEveryBar?: boolean;
}) {
  const [showTable, setShowTable] = useState(tableInitiallyVisible);
  // The axis follows the data. A reference (the budget's daily share) is drawn when it fits near the data;
  // far above it, stretching the axis to reach it would flatten the bars into a sliver, so it is named instead.
  const dataMax = tallestBar(data, series);
  const referenceFits = reference ? dataMax > 0 && reference.value <= dataMax * REFERENCE_REACH : false;
  const id = useId();
  const tableId = `${id}-table`;
  return (
    <figure className="space-y-2">
      <figcaption>
        <span className="font-semibold">{title}</span>
        {description ? <span className="block text-sm muted">{description}</span> : null}
        {reference && !referenceFits ? (
          <span className="block text-sm muted" data-testid="reference-off-scale">
            The {reference.label} ({fmt(reference.value)}) is{" "}
            {dataMax > 0 ? "far above this use, so it is left off the scale" : "not drawn: nothing was used"}.
          </span>
        ) : null}
      </figcaption>
      <Bars
        data={data}
        xKey={xKey}
        series={series}
        reference={reference && referenceFits ? reference : undefined}
        height={height}
        labelEveryBar={labelEveryBar}
      />
      <button
        type="button"
        className="text-sm underline underline-offset-2"
        aria-controls={tableId}
        aria-expanded={showTable}
        onClick={() => setShowTable((v) => !v)}
      >
        {showTable ? "Hide the numbers" : "Show the numbers"}
      </button>
      <div id={tableId} className={showTable ? "overflow-x-auto" : "sr-only"}>
        <NumbersTable
          title={title}
          data={data}
          xKey={xKey}
          xLabel={xLabel}
          series={series}
          extraColumns={extraColumns}
        />
      </div>
    </figure>
  );
}

/** The height of the tallest bar: stacked series add up, the others stand side by side. */
function tallestBar(data: ChartRow[], series: ChartSeries[]): number {
  return Math.max(
    0,
    ...data.map((row) => {
      const stacks = new Map<string, number>();
      for (const s of series) {
        const k = s.stack ?? s.key;
        stacks.set(k, (stacks.get(k) ?? 0) + Number(row[s.key] ?? 0));
      }
      return Math.max(0, ...stacks.values());
    }),
  );
}

type ExtraColumn = { key: string; label: string; format?: (v: number) => string };

/** The chart's numbers as a table: always in the page for screen readers, shown to others on request. */
function NumbersTable({
  title,
  data,
  xKey,
  xLabel,
  series,
  extraColumns,
}: {
  title: string;
  data: ChartRow[];
  xKey: string;
  xLabel: string;
  series: ChartSeries[];
  extraColumns: ExtraColumn[];
}) {
  return (
    <table className="w-full text-left text-sm">
      <caption className="sr-only">{title}</caption>
      <thead>
        <tr className="border-b border-[var(--border)]">
          <th scope="col" className="py-1 pr-3">
            {xLabel}
          </th>
          {series.map((s) => (
            <th key={s.key} scope="col" className="py-1 pr-3 text-right">
              {s.label}
            </th>
          ))}
          {extraColumns.map((c) => (
            <th key={c.key} scope="col" className="py-1 pr-3 text-right">
              {c.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {data.map((row) => (
          <tr key={String(row[xKey])} className="border-b border-[var(--border)]">
            <th scope="row" className="py-1 pr-3 font-normal whitespace-nowrap">
              {String(row[xKey])}
            </th>
            {series.map((s) => (
              <td key={s.key} className="py-1 pr-3 text-right tabular-nums">
                {fmt(row[s.key])}
              </td>
            ))}
            {extraColumns.map((c) => (
              <td key={c.key} className="py-1 pr-3 text-right tabular-nums">
                {c.format ? c.format(Number(row[c.key] ?? 0)) : fmt(row[c.key])}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The drawing, hidden from screen readers; `reference` only when it fits near the data. */
function Bars({
  data,
  xKey,
  series,
  reference,
  height,
  labelEveryBar,
}: {
  data: ChartRow[];
  xKey: string;
  series: ChartSeries[];
  reference: { value: number; label: string } | undefined;
  height: number;
  labelEveryBar: boolean;
}) {
  return (
    <div aria-hidden="true" style={{ height }} className="text-xs">
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: 0 }} accessibilityLayer={false}>
          <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" vertical={false} />
          <XAxis
            dataKey={xKey}
            tick={{ fill: "var(--text-muted)" }}
            stroke="var(--border)"
            tickLine={false}
            {...(labelEveryBar
              ? { interval: 0, angle: -30, textAnchor: "end", height: 64 }
              : { minTickGap: 12 })}
          />
          <YAxis
            tick={{ fill: "var(--text-muted)" }}
            stroke="var(--border)"
            tickLine={false}
            allowDecimals={false}
            width={56}
            tickFormatter={fmt}
          />
          <Tooltip
            cursor={{ fill: "var(--surface-muted)" }}
            contentStyle={{
              background: "var(--surface)",
              border: "1px solid var(--border)",
              borderRadius: 8,
              color: "var(--text)",
            }}
            labelStyle={{ color: "var(--text)", fontWeight: 600 }}
            formatter={(value) => fmt(value)}
          />
          {series.length > 1 ? (
            // Legend text in the page's text colour: the series' mid-tones are too light to read as text.
            <Legend formatter={(value) => <span style={{ color: "var(--text)" }}>{value}</span>} />
          ) : null}
          {series.map((s) => (
            <Bar
              key={s.key}
              dataKey={s.key}
              name={s.label}
              fill={s.color}
              stackId={s.stack}
              maxBarSize={56}
              isAnimationActive={false}
            />
          ))}
          {reference ? (
            <ReferenceLine
              y={reference.value}
              stroke={CHART_COLORS.red}
              strokeDasharray="6 4"
              ifOverflow="extendDomain"
              label={{
                value: reference.label,
                position: "insideTopRight",
                fill: "var(--text)",
                fontSize: 11,
              }}
            />
          ) : null}
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
