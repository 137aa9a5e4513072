// A small Markdown subset for answers: paragraphs, line breaks, **strong**, *em*, `code`, fenced code, bullet
// and numbered lists, headings (shown as bold paragraphs), https links and simple pipe tables. The output is a plain tree whose
// tags come from a closed list and whose text is only ever placed in text nodes, so model output can never
// become markup: "<img onerror=…>" stays the visible string it is. Images and raw HTML have no node type.

export type MdTag =
  | "p"
  | "ul"
  | "ol"
  | "li"
  | "strong"
  | "em"
  | "code"
  | "pre"
  | "a"
  | "br"
  | "table"
  | "thead"
  | "tbody"
  | "tr"
  | "th"
  | "td";
export type MdElement = { t: MdTag; c: MdNode[]; href?: string };
export type MdNode = string | MdElement;

const MAX_DEPTH = 6;
const MAX_INPUT = 20_000;

/** An https URL re-serialised by the URL parser, or null for anything else (javascript:, data:, http:, relative). */
export function safeHref(raw: string): string | null {
  // Control characters and spaces are refused outright rather than trusting the parser to strip them.
  if (
    !raw ||
    /[\s<>"`]/.test(raw) ||
    [...raw].some((ch) => ch.charCodeAt(0) < 32 || ch.charCodeAt(0) === 127)
  )
    return null;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return null;
  }
  if (u.protocol !== "https:" || !u.hostname || u.username || u.password) return null;
  return u.href;
}

const el = (t: MdTag, c: MdNode[], href?: string): MdElement => (href ? { t, c, href } : { t, c });

function pushText(out: MdNode[], s: string) {
  if (!s) return;
  const last = out[out.length - 1];
  if (typeof last === "string") out[out.length - 1] = last + s;
  else out.push(s);
}

// The target may hold one level of balanced parentheses, as in https://en.example/wiki/Foo_(bar).
const LINK =
  /^\[([^\]\n]{1,500})\]\(\s*<?((?:[^\s()<>]|\([^\s()<>]*\)){1,2000})>?(?:\s+"[^"\n]{0,200}")?\s*\)/;
const BARE_URL = /^https:\/\/[^\s<>()[\]"'`]+/i;
const ESCAPABLE = /[\\`*_{}[\]()#+\-.!<>|~]/;

/** Finds the closing delimiter for an emphasis run opened at `from`, or -1. */
function closing(text: string, delim: string, from: number): number {
  let i = text.indexOf(delim, from);
  while (i !== -1) {
    const before = text[i - 1] ?? "";
    const after = text[i + delim.length] ?? "";
    const wordAfter = delim[0] === "_" && /\w/.test(after);
    if (i > from && !/\s/.test(before) && !wordAfter && !(delim.length === 1 && after === delim)) return i;
    // Step by one, so every occurrence is tried whatever the alignment (this keeps the "no closer after
    // here" memo in parseInline sound).
    i = text.indexOf(delim, i + 1);
  }
  return -1;
}

/** The next character that could start inline syntax, from `from` on. */
const SPECIAL = /[\\`[*_hH!]/g;

export function parseInline(text: string, depth = 0, inLink = false): MdNode[] {
  const out: MdNode[] = [];
  // Where each emphasis delimiter was last found to have no closer: any later opener has none either.
  // Without this, text full of unmatched "*" or "_" would take quadratic time on every streamed delta.
  const noCloserFrom: Record<string, number> = {};
  let i = 0;
  while (i < text.length) {
    const ch = text[i] ?? "";
    const escaped = text[i + 1] ?? "";
    if (ch === "\\" && ESCAPABLE.test(escaped)) {
      pushText(out, escaped);
      i += 2;
      continue;
    }
    if (ch === "`") {
      const end = text.indexOf("`", i + 1);
      if (end > i + 1) {
        out.push(el("code", [text.slice(i + 1, end)]));
        i = end + 1;
        continue;
      }
    }
    if (ch === "!" && text[i + 1] === "[") {
      // An image is never shown or fetched: only its alt text remains.
      const m = LINK.exec(text.slice(i + 1, i + 3000));
      if (m?.[1]) {
        pushText(out, m[1]);
        i += m[0].length + 1;
        continue;
      }
    }
    if (!inLink && ch === "[") {
      const m = LINK.exec(text.slice(i, i + 3000));
      if (m?.[1] && m[2]) {
        const href = safeHref(m[2]);
        const label = depth < MAX_DEPTH ? parseInline(m[1], depth + 1, true) : [m[1]];
        // A link we will not follow keeps its words and loses its target.
        if (href) out.push(el("a", label, href));
        else for (const n of label) typeof n === "string" ? pushText(out, n) : out.push(n);
        i += m[0].length;
        continue;
      }
    }
    if (!inLink && (ch === "h" || ch === "H") && !/\w/.test(text[i - 1] ?? "")) {
      const m = BARE_URL.exec(text.slice(i, i + 2100));
      if (m) {
        const url = m[0].replace(/[.,;:!?]+$/, "");
        const href = safeHref(url);
        if (href) {
          out.push(el("a", [url], href));
          i += url.length;
          continue;
        }
      }
    }
    if ((ch === "*" || ch === "_") && depth < MAX_DEPTH) {
      const strong = text[i + 1] === ch;
      const delim = strong ? ch + ch : ch;
      const opensWord = ch === "_" && /\w/.test(text[i - 1] ?? "");
      const next = text[i + delim.length] ?? "";
      const from = i + delim.length;
      if (
        !opensWord &&
        next &&
        !/\s/.test(next) &&
        from < (noCloserFrom[delim] ?? Number.POSITIVE_INFINITY)
      ) {
        const end = closing(text, delim, from);
        if (end === -1) noCloserFrom[delim] = from;
        if (end !== -1) {
          const inner = parseInline(text.slice(i + delim.length, end), depth + 1, inLink);
          out.push(el(strong ? "strong" : "em", inner));
          i = end + delim.length;
          continue;
        }
      }
    }
    // Plain run: up to the next character that could start something.
    SPECIAL.lastIndex = i + 1;
    const stop = SPECIAL.exec(text)?.index ?? text.length;
    pushText(out, text.slice(i, stop));
    i = stop;
  }
  return out;
}

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
