// A small Markdown subset for answers: paragraphs, line breaks, **strong**, *em*, `code`, fenced code, bullet
// and numbered lists, headings (shown as bold paragraphs), https links and simple pipe tables. The output is a plain tree whose
// tags come from a closed list and whose text is only ever placed in text nodes, so model output can never
// become markup: "<img onerror=…>" stays the visible string it is. Images and raw HTML have no node type.
// This file has the blocks; the inline half (and the node types) is in ./markdown-inline.ts.

import { el, type MdElement, type MdNode, type MdTag, parseInline, pushText } from "./markdown-inline";

const MAX_INPUT = 20_000;

const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const HEADING = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/;
const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;
// A table's second line: cells of dashes with optional alignment colons, e.g. "| --- | :-: |".
const TABLE_DELIM = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;
const MAX_COLS = 12;
const MAX_ROWS = 200;

/** The cells of one table row; "\|" stays in the cell (parseInline turns it into a pipe). */
function cells(line: string): string[] {
  const inner = line
    .trim()
    .replace(/^\|/, "")
    .replace(/(?<!\\)\|$/, "");
  return inner
    .split(/(?<!\\)\|/)
    .slice(0, MAX_COLS)
    .map((c) => c.trim());
}

/**
 * A short cell with a number in it ("4.50 €", "18:00 - 20:00") is kept on one line: its spaces become
 * non-breaking, so a narrow panel scrolls the table sideways instead of putting a price on two lines.
 */
function keepTogether(cell: string): string {
  return cell.length <= 24 && /\d/.test(cell) ? cell.replace(/ /g, "\u00a0") : cell;
}

/** A GitHub-style pipe table starting at lines[n], or null; cells hold inline Markdown only. */
function table(lines: string[], n: number): { node: MdElement; next: number } | null {
  const head = lines[n] ?? "";
  const delim = lines[n + 1] ?? "";
  if (!head.includes("|") || !delim.includes("-") || !TABLE_DELIM.test(delim)) return null;
  const names = cells(head);
  // As on GitHub: the delimiter row has as many cells as the header, so "a | b" over "---" is no table.
  if (cells(delim).length !== names.length || (names.length < 2 && !head.trim().startsWith("|"))) return null;
  const row = (line: string, tag: "th" | "td") => {
    const got = cells(line);
    return el(
      "tr",
      names.map((_, i) => el(tag, parseInline(keepTogether(got[i] ?? "")))),
    );
  };
  const body: MdElement[] = [];
  let i = n + 2;
  for (; i < lines.length && body.length < MAX_ROWS; i++) {
    const line = lines[i] ?? "";
    if (!line.trim() || !line.includes("|")) break;
    body.push(row(line, "td"));
  }
  const parts = [el("thead", [row(head, "th")])];
  if (body.length) parts.push(el("tbody", body));
  return { node: el("table", parts), next: i - 1 };
}

export function parseMarkdown(source: string): MdNode[] {
  const lines = source.slice(0, MAX_INPUT).replace(/\r\n?/g, "\n").split("\n");
  const blocks: MdNode[] = [];
  let para: string[] = [];
  let list: { el: MdElement; items: string[][] } | null = null;

  const flushPara = () => {
    if (para.length === 0) return;
    const c: MdNode[] = [];
    para.forEach((line, n) => {
      if (n > 0) c.push(el("br", []));
      for (const node of parseInline(line)) typeof node === "string" ? pushText(c, node) : c.push(node);
    });
    blocks.push(el("p", c));
    para = [];
  };
  const flushList = () => {
    if (!list) return;
    for (const item of list.items) list.el.c.push(el("li", parseInline(item.join(" "))));
    blocks.push(list.el);
    list = null;
  };

  for (let n = 0; n < lines.length; n++) {
    const line = lines[n] ?? "";
    const fence = FENCE.exec(line);
    if (fence?.[1]) {
      flushPara();
      flushList();
      const body: string[] = [];
      n++;
      while (n < lines.length && !(lines[n] ?? "").trimStart().startsWith(fence[1]))
        body.push(lines[n++] ?? "");
      blocks.push(el("pre", [el("code", [body.join("\n")])]));
      continue;
    }
    if (!line.trim()) {
      flushPara();
      flushList();
      continue;
    }
    if (RULE.test(line)) {
      flushPara();
      flushList();
      continue;
    }
    const tbl = table(lines, n);
    if (tbl) {
      flushPara();
      flushList();
      blocks.push(tbl.node);
      n = tbl.next;
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      flushPara();
      flushList();
      blocks.push(el("p", [el("strong", parseInline(heading[1] ?? ""))]));
      continue;
    }
    const item = ITEM.exec(line);
    if (item?.[2] !== undefined) {
      flushPara();
      const tag: MdTag = /\d/.test(item[2]) ? "ol" : "ul";
      if (list && list.el.t !== tag && !item[1]) flushList();
      if (!list) list = { el: el(tag, []), items: [] };
      list.items.push([item[3] ?? ""]);
      continue;
    }
    // An indented line right after an item continues that item; anything else ends the list.
    const current: { el: MdElement; items: string[][] } | null = list;
    if (current && /^\s+/.test(line)) {
      current.items[current.items.length - 1]?.push(line.trim());
      continue;
    }
    flushList();
    para.push(line.trim());
  }
  flushPara();
  flushList();
  return blocks;
}
