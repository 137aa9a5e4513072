import "server-only";

// The shapes the Insights pages render, named here so components never reach into src/lib/db.

export type { Outcome } from "../db/queries/insights-list";
export {
  type ConversationSummary,
  type ListFilters,
  OUTCOMES,
} from "../db/queries/insights-list";
export type { ToolRunRow } from "../db/queries/insights-transcript";
export type { UsageReport } from "../db/queries/insights-usage";
