import "server-only";
import { z } from "zod";
import { dayStart, isoDay, nextDayStart } from "../db/queries/insights-list";
import { AppError } from "../errors";
import type { ExportFormat } from "./export-stream";

// The export's query string: ?format=csv|json&from=YYYY-MM-DD&to=YYYY-MM-DD (UTC days, both included).
// Without dates the last 30 days are exported.

const querySchema = z.object({
  format: z.enum(["csv", "json"]).default("csv"),
  from: isoDay.optional(),
  to: isoDay.optional(),
});

export type ExportRequest = {
  format: ExportFormat;
  from: string;
  to: string;
  range: { from: Date; until: Date };
};

export function parseExportQuery(url: URL, now: Date = new Date()): ExportRequest {
  const raw = Object.fromEntries(
    ["format", "from", "to"].flatMap((k) => {
      const v = url.searchParams.get(k);
      return v ? [[k, v]] : [];
    }),
  );
  const parsed = querySchema.safeParse(raw);
  if (!parsed.success) {
    const fieldErrors: Record<string, string[]> = {};
    for (const issue of parsed.error.issues) {
      const key = String(issue.path[0] ?? "query");
      fieldErrors[key] = [...(fieldErrors[key] ?? []), issue.message];
    }
    throw new AppError("invalid_input", "The export parameters are not valid.", { fieldErrors });
  }
  const today = now.toISOString().slice(0, 10);
  const to = parsed.data.to ?? today;
  const from =
    parsed.data.from ?? new Date(dayStart(to).getTime() - 29 * 86_400_000).toISOString().slice(0, 10);
  if (from > to) throw new AppError("invalid_input", "The start date must not be after the end date.");
  return { format: parsed.data.format, from, to, range: { from: dayStart(from), until: nextDayStart(to) } };
}

export function exportFilename(slug: string, req: Pick<ExportRequest, "format" | "from" | "to">): string {
  // The slug is [a-z0-9-] and the dates are digits, so the name needs no quoting beyond the plain quotes.
  return `michi-${slug}-conversations-${req.from}-to-${req.to}.${req.format}`;
}
