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
  timeZone: "UTC",
  days: [],
  packs: [],
  totals: { conversations: 2, messages: 4, tokens: 900, toolCalls: 0 },
  month: { month: "2026-11", tokens: 900, estimatedTokens: monthEstimated },
  estimatedTokens: estimated,
  figures: { checked: 0, unsupported: 0 },
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

describe("the Usage page's periods and per-day figures", () => {
  const day = (d: string, tokens: number, estimated: number) => ({
    day: d,
    conversations: 1,
    visitorMessages: 1,
    botMessages: 1,
    messages: 2,
    promptTokens: tokens - 100,
    completionTokens: 100,
    tokens,
    estimatedTokens: estimated,
  });
  const withDays: UsageReport = {
    ...report(300, 300),
    days: [day("2026-11-29", 1200, 0), day("2026-11-30", 2400, 300)],
  };

  it("explains both periods with their dates", () => {
    const html = render(withDays);
    expect(html).toContain("Today and the 6 days before it (24 Nov 2026 to 30 Nov 2026, UTC)");
    expect(html).toContain("This month (November 2026)");
    // The reset in the page's zone, in the one date format (issue 45 item 3).
    expect(html).toContain("starts again on 1 Dec 2026, 00:00 UTC");
    expect(html).toContain("what counts against your monthly budget");
  });

  it("marks a day whose total includes estimates, and only that day", () => {
    const html = render(withDays);
    expect(html).toMatch(/2026-11-30<\/th>(?:<td[^>]*>[^<]*<\/td>)*<td[^>]*>≈ 2,400<\/td>/);
    expect(html).toMatch(/2026-11-29<\/th>(?:<td[^>]*>[^<]*<\/td>)*<td[^>]*>1,200<\/td>/);
  });

  it("names a budget line far above the use instead of stretching the axis to it", () => {
    const big = renderToStaticMarkup(
      createElement(UsageView, { report: withDays, budget: 3_000_000, packLabel: (id: string) => id }),
    );
    expect(big).toMatch(/The daily share of budget \(100,000\) is\s+far above this use/);
    // A budget whose daily share is near the use is drawn (no note).
    const near = renderToStaticMarkup(
      createElement(UsageView, { report: withDays, budget: 90_000, packLabel: (id: string) => id }),
    );
    expect(near).not.toContain("reference-off-scale");
  });
});
