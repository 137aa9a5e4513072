// Plain-text tables for the terminal: no colours, so the output can be pasted into the README as is.

export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? `-${"-".repeat(w)}-` : `-${"-".repeat(w)}:`)).join("|")}|`;
  return [line(header), rule, ...rows.map((r) => line(header.map((_, i) => r[i] ?? "")))].join("\n");
}

export function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

export function fmt(v: number | null | undefined, unit = "", digits = 1): string {
  if (v === null || v === undefined || Number.isNaN(v)) return "n/a";
  return `${v.toFixed(digits)}${unit}`;
}
