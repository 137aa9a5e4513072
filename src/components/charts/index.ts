export { parsePeriod } from "./periods";
export { PeriodSwitch, UsageView } from "./UsageView";
