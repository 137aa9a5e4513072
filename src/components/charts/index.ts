export { BarChartFigure, CHART_COLORS, type ChartRow, type ChartSeries } from "./BarChartFigure";
export { UsageCharts, type UsageDay, type UsagePack } from "./UsageCharts";
export { EstimatesLegend, PeriodSwitch, UsageView } from "./UsageView";
