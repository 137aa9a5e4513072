export { PeriodSwitch, UsageView } from "./UsageView";
