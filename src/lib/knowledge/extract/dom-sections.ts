import "server-only";
import type { Section } from "./types";

// Turns a DOM subtree into sections: each heading (h1–h6) opens a section whose heading path is the chain of
// headings above it; blocks become lines, list items get a dash, table rows join their cells with " | ".
// Works on any DOM with the standard node API (linkedom here), so HTML pages and DOCX converted by mammoth
// share it.

type DomNode = {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  childNodes: ArrayLike<DomNode>;
};

const TEXT_NODE = 3;
const ELEMENT_NODE = 1;

const SKIP = new Set([
  "SCRIPT",
  "STYLE",
  "NOSCRIPT",
  "TEMPLATE",
  "SVG",
  "CANVAS",
  "IFRAME",
  "OBJECT",
  "EMBED",
  "BUTTON",
  "SELECT",
  "TEXTAREA",
  "INPUT",
  "HEAD",
]);

const BLOCK = new Set([
  "ADDRESS",
  "ARTICLE",
  "ASIDE",
  "BLOCKQUOTE",
  "BODY",
  "CAPTION",
  "DD",
  "DETAILS",
  "DIV",
  "DL",
  "DT",
  "FIELDSET",
  "FIGCAPTION",
  "FIGURE",
  "FOOTER",
  "FORM",
  "HEADER",
  "HR",
  "LEGEND",
  "MAIN",
  "NAV",
  "OL",
  "P",
  "SECTION",
  "SUMMARY",
  "TABLE",
  "TBODY",
  "TFOOT",
  "THEAD",
  "UL",
]);

const HEADING = /^H([1-6])$/;

/** Collapses white space the way a browser renders it (non-breaking spaces included). */
export function collapse(text: string): string {
  return text.replace(/[\s\u00a0]+/g, " ").trim();
}

// A section whose letters are nearly all link text is a list of links ("Related articles", "On this page",
// a hub's lists): navigation inside the main content. Its link titles would match questions the section
// does not answer, so it is left out.
const LINK_LIST_SHARE = 0.8;

const letterCount = (text: string) => text.replace(/[\s\u00a0]+/g, "").length;

class SectionBuilder {
  readonly sections: Section[] = [];
  private path: { level: number; text: string }[] = [];
  private lines: string[] = [];
  private line = "";
  private chars = 0;
  private letters = 0;
  private linkLetters = 0;

  constructor(private readonly maxChars: number) {}

  inline(text: string, linked: boolean): void {
    this.line += text;
    const n = letterCount(text);
    this.letters += n;
    if (linked) this.linkLetters += n;
  }

  endLine(prefix = ""): void {
    const text = collapse(this.line);
    this.line = "";
    if (text) this.addLine(prefix + text);
  }

  addLine(text: string, countLetters = false): void {
    this.lines.push(text);
    this.chars += text.length + 1;
    if (countLetters) this.letters += letterCount(text);
  }

  heading(level: number, text: string): void {
    this.endLine();
    this.endSection();
    this.path = this.path.filter((h) => h.level < level);
    if (text) this.path.push({ level, text });
  }

  endSection(): void {
    this.endLine();
    const linkList = this.letters > 0 && this.linkLetters / this.letters >= LINK_LIST_SHARE;
    if (this.lines.length > 0 && !linkList) {
      this.sections.push({ headingPath: this.path.map((h) => h.text), text: this.lines.join("\n") });
    }
    this.lines = [];
    this.letters = 0;
    this.linkLetters = 0;
  }

  full(): boolean {
    return this.chars > this.maxChars;
  }
}

function walk(node: DomNode, out: SectionBuilder, listDepth: number, linked = false): void {
  if (out.full()) return;
  if (node.nodeType === TEXT_NODE) {
    out.inline(node.textContent ?? "", linked);
    return;
  }
  if (node.nodeType !== ELEMENT_NODE) return;
  const tag = node.nodeName.toUpperCase();
  if (SKIP.has(tag)) return;
  const heading = HEADING.exec(tag);
  if (heading) {
    out.heading(Number(heading[1]), collapse(node.textContent ?? ""));
    return;
  }
  if (tag === "BR") {
    out.endLine();
    return;
  }
  if (tag === "PRE") {
    out.endLine();
    for (const line of (node.textContent ?? "").split("\n"))
      if (line.trim()) out.addLine(line.trimEnd(), true);
    return;
  }
  if (tag === "TR") {
    out.endLine();
    const cells = Array.from(node.childNodes)
      .filter((c) => c.nodeType === ELEMENT_NODE && /^T[DH]$/i.test(c.nodeName))
      .map((c) => collapse(c.textContent ?? ""))
      .filter(Boolean);
    if (cells.length) out.addLine(cells.join(" | "), true);
    return;
  }
  if (tag === "LI") {
    out.endLine();
    const prefix = `${"  ".repeat(Math.max(0, listDepth - 1))}- `;
    for (const child of Array.from(node.childNodes)) {
      const nested = child.nodeType === ELEMENT_NODE && /^(UL|OL)$/i.test(child.nodeName);
      if (nested) out.endLine(prefix);
      walk(child, out, listDepth, linked);
    }
    out.endLine(prefix);
    return;
  }
  const block = BLOCK.has(tag);
  if (block) out.endLine();
  const depth = tag === "UL" || tag === "OL" ? listDepth + 1 : listDepth;
  const inLink = linked || tag === "A";
  for (const child of Array.from(node.childNodes)) walk(child, out, depth, inLink);
  if (block) out.endLine();
}

/** The sections of a subtree, in reading order; stops adding text once `maxChars` is passed. */
export function domSections(root: DomNode, maxChars: number): { sections: Section[]; truncated: boolean } {
  const out = new SectionBuilder(maxChars);
  walk(root, out, 0);
  out.endSection();
  return { sections: out.sections, truncated: out.full() };
}
