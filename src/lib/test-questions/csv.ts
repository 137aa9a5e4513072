import "server-only";
import type { TestExpect } from "@/lib/db/schema";
import { AppError } from "@/lib/errors";
import { parseQuestion, type QuestionInput } from "./input";

// The list as a CSV file (RFC 4180: commas, double quotes doubled, CRLF), one question a row; a cell with
// several terms separates them with "|". The header names the columns, so a file from a spreadsheet with its
// columns in another order, or fewer of them, reads the same.

export const CSV_COLUMNS = [
  "question",
  "cite_url",
  "pack",
  "contains",
  "never_contains",
  "says_unknown",
  "no_unsupported_figures",
] as const;

/** A cell a spreadsheet would run as a formula starts with a quote instead (CSV injection). */
function cell(v: string): string {
  const safe = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export function toCsv(rows: { question: string; expect: TestExpect }[]): string {
  const lines = [CSV_COLUMNS.join(",")];
  for (const r of rows) {
    const e = r.expect;
    lines.push(
      [
        r.question,
        e.citeUrl ?? "",
        e.pack ?? "",
        (e.mustContain ?? []).join("|"),
        (e.mustNotContain ?? []).join("|"),
        e.sayUnknown ? "yes" : "",
        e.noUnsupportedFigures ? "yes" : "",
      ]
        .map(cell)
        .join(","),
    );
  }
  return `${lines.join("\r\n")}\r\n`;
}

/** Rows of cells; quoted cells may hold commas, quotes and line breaks. */
export function parseCsvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cur = "";
  let quoted = false;
  const s = text.replace(/^\uFEFF/, "");
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (quoted) {
      if (c === '"' && s[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cur += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(cur);
      cur = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && s[i + 1] === "\n") i++;
      row.push(cur);
      rows.push(row);
      row = [];
      cur = "";
    } else cur += c;
  }
  if (cur !== "" || row.length) {
    row.push(cur);
    rows.push(row);
  }
  return rows.filter((r) => r.some((c) => c.trim() !== ""));
}

/** The file's questions, checked; a bad row is refused with its line number, so nothing is half imported. */
export function fromCsv(text: string): QuestionInput[] {
  const rows = parseCsvRows(text);
  if (rows.length === 0) throw new AppError("invalid_input", "The file is empty.");
  const header = rows[0]!.map((h) => h.trim().toLowerCase());
  if (!header.includes("question")) {
    throw new AppError("invalid_input", `The first line must name the columns, "question" among them.`);
  }
  const at = (r: string[], name: (typeof CSV_COLUMNS)[number]) => {
    const i = header.indexOf(name);
    const v = i >= 0 ? (r[i] ?? "") : "";
    return v.startsWith("'") && /^'[=+\-@]/.test(v) ? v.slice(1) : v;
  };
  return rows.slice(1).map((r, i) => {
    try {
      return parseQuestion({
        question: at(r, "question"),
        citeUrl: at(r, "cite_url"),
        pack: at(r, "pack"),
        mustContain: at(r, "contains"),
        mustNotContain: at(r, "never_contains"),
        sayUnknown: at(r, "says_unknown"),
        noUnsupportedFigures: at(r, "no_unsupported_figures"),
      });
    } catch (err) {
      const fields = (err as AppError).details?.fieldErrors as Record<string, string[]> | undefined;
      const first = fields ? Object.values(fields)[0]?.[0] : undefined;
      throw new AppError("invalid_input", `Line ${i + 2}: ${first ?? "this row could not be read"}`);
    }
  });
}
