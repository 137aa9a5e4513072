import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { EstimatesLegend, UsageView } from "@/components/charts";
import type { UsageReport } from "@/lib/db/queries/insights-usage";

// The Usage page marks figures that include estimated tokens (≈) and explains the mark once.

const report = (estimated: number, monthEstimated: number): UsageReport => ({
  period: 7,
  since: new Date("2026-11-24T00:00:00Z"),
  until: new Date("2026-12-01T00:00:00Z"),
  days: [],
  packs: [],
  totals: { conversations: 2, messages: 4, tokens: 900, toolCalls: 0 },
  month: { month: "2026-11", tokens: 900, estimatedTokens: monthEstimated },
  estimatedTokens: estimated,
});

const render = (r: UsageReport) =>
  renderToStaticMarkup(
    createElement("div", null, [
      createElement(UsageView, { key: "v", report: r, budget: 1000, packLabel: (id: string) => id }),
      createElement(EstimatesLegend, { key: "l", report: r }),
    ]),
  );

describe("usage estimates", () => {
  it("marks the period and month figures and says what the mark means", () => {
    const html = render(report(120, 120));
    expect(html.match(/href="#estimates"/g)).toHaveLength(2);
    expect(html).toContain('id="estimates"');
    expect(html).toMatch(/≈ 120 tokens in this period and 120 this month are\s+estimates/);
  });

  it("shows no mark and no legend when every figure was reported", () => {
    const html = render(report(0, 0));
    expect(html).not.toContain("#estimates");
    expect(html).not.toContain("estimates:");
  });
});
