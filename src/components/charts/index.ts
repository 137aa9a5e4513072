export { parsePeriod } from "./periods";
export { EstimatesLegend, PeriodSwitch, UsageView } from "./UsageView";
