import "server-only";
import type { Citation } from "@/shared/citations";
import type { VisitorRows } from "../db/queries/visitor-data";
import type { VisitorHandle } from "./identify";

/** One visitor's data as exported (JSON as is; export-html.ts renders the same for reading). */
export type VisitorExport = {
  business: { name: string; slug: string };
  exportedAt: string;
  foundBy: VisitorHandle;
  counts: Record<string, number>;
  /** The sources each answer cited, by message id, read from its turn's knowledge search. */
  citations: Record<string, Citation[]>;
  /** Every stored row, by table, with the database's column names. */
  tables: VisitorRows;
};
