import "server-only";

// The shapes the Inbox renders, named here so components never reach into src/lib/db.

export type { InboxFilters, LeadRow, VisibleMessage } from "../db/queries/leads";
