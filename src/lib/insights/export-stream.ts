import "server-only";
import type { ExportRow } from "../db/queries/insights-export";
import { log } from "../log";
import { estimateTokens } from "../tools/tokens";

// Turns batches of export rows into a byte stream, one batch per chunk. The stream pulls the next batch only
// when the reader wants more, so memory stays at about one batch however large the export is.

export type ExportFormat = "csv" | "json";

export const CSV_COLUMNS = [
  "conversation_id",
  "conversation_started_at",
  "visitor_id",
  "origin",
  "page_url",
  "locale",
  "message_id",
  "created_at",
  "role",
  "content",
  "status",
  "reason",
  "model",
  "prompt_tokens",
  "completion_tokens",
  "tool_calls",
] as const;

// Spreadsheet programs run a cell that starts with one of these as a formula (CSV injection); a leading
// apostrophe makes them show it as text. Tab and CR are included as OWASP recommends.
const FORMULA_START = /^[=+\-@\t\r]/;

/** One CSV field per RFC 4180: quoted when it holds a comma, quote, CR or LF; text guarded against formulas. */
export function csvField(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvLine(fields: (string | number | null | undefined)[]): string {
  return `${fields.map(csvField).join(",")}\r\n`;
}

/** Tool calls of one answer in a cell: "pack:outcome:duration ms", separated by "; ". Full detail is in JSON. */
function toolCell(row: ExportRow): string {
  return row.tools.map((t) => `${t.packId}:${t.outcome}:${t.durationMs}ms`).join("; ");
}

/** Runs stored since 2026-12-01 carry no token count (see StoredToolRun): the JSON export counts them here. */
function counted(r: ExportRow): ExportRow {
  if (r.tools.every((t) => t.resultTokens !== null)) return r;
  return {
    ...r,
    tools: r.tools.map((t) => ({ ...t, resultTokens: t.resultTokens ?? estimateTokens(t.result) })),
  };
}

export function csvRow(r: ExportRow): string {
  return csvLine([
    r.conversationId,
    r.conversationStartedAt,
    r.visitorId,
    r.origin,
    r.pageUrl,
    r.locale,
    r.messageId,
    r.createdAt,
    r.role,
    r.content,
    r.status,
    r.reason,
    r.model,
    r.promptTokens,
    r.completionTokens,
    toolCell(r),
  ]);
}

/**
 * The export as a stream. CSV starts with a UTF-8 byte-order mark so spreadsheet programs read non-Latin text
 * correctly, then a header line; JSON is one array written element by element.
 */
export function exportStream(
  batches: AsyncIterator<ExportRow[]> | AsyncIterable<ExportRow[]>,
  format: ExportFormat,
): ReadableStream<Uint8Array> {
  const it = Symbol.asyncIterator in batches ? batches[Symbol.asyncIterator]() : batches;
  const encoder = new TextEncoder();
  let first = true;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let next: IteratorResult<ExportRow[]>;
        try {
          next = await it.next();
        } catch (err) {
          // Headers are already sent: the download ends short, and the log says why.
          log().error({ err }, "export stream failed");
          controller.error(err);
          return;
        }
        let text = "";
        if (first) text = format === "csv" ? `\uFEFF${csvLine([...CSV_COLUMNS])}` : "[";
        if (next.done) {
          if (format === "json") text += first ? "]" : "\n]\n";
          controller.enqueue(encoder.encode(text));
          controller.close();
          return;
        }
        if (format === "csv") text += next.value.map(csvRow).join("");
        else
          text += next.value
            .map((r, i) => `${first && i === 0 ? "\n" : ",\n"}${JSON.stringify(counted(r))}`)
            .join("");
        first = false;
        controller.enqueue(encoder.encode(text));
      },
      async cancel() {
        await it.return?.();
      },
    },
    // One chunk (one batch) of read-ahead at most.
    { highWaterMark: 1 },
  );
}
