// The inline half of the answers' Markdown subset (src/widget/markdown.ts has the blocks): the node types,
// **strong**, *em*, `code`, https links and bare https URLs, and the one check every link target passes. Text
// is only ever placed in text nodes, so model output can never become markup.

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

export const el = (t: MdTag, c: MdNode[], href?: string): MdElement => (href ? { t, c, href } : { t, c });

export function pushText(out: MdNode[], s: string) {
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
