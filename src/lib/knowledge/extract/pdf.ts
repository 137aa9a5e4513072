import "server-only";
import { getDocumentProxy } from "unpdf";
import { collapse } from "./dom-sections";
import { checkPdfStreams } from "./pdf-streams";
import { type Deadline, type ExtractedDocument, type ExtractLimits, refusal, type Section } from "./types";

// A PDF's text through PDF.js (bundled by unpdf). A PDF has no headings, only glyphs at sizes: a short line
// set clearly larger than the body text is taken as a heading, its level by its size among the headings.

type TextItem = { str: string; height: number; hasEOL: boolean; transform: number[] };
type Line = { text: string; size: number; y: number };

function linesOf(items: TextItem[]): Line[] {
  const lines: Line[] = [];
  let text = "";
  let size = 0;
  let y = 0;
  const flush = () => {
    const t = collapse(text);
    if (t) lines.push({ text: t, size, y });
    text = "";
    size = 0;
  };
  for (const item of items) {
    const itemY = item.transform[5] ?? 0;
    if (text && Math.abs(itemY - y) > Math.max(2, size * 0.5)) flush();
    if (!text) y = itemY;
    text += item.str;
    size = Math.max(size, Math.abs(item.height || item.transform[3] || 0));
    if (item.hasEOL) flush();
  }
  flush();
  return lines;
}

/** The body size: the size most characters are set in. */
function bodySize(lines: Line[]): number {
  const weight = new Map<number, number>();
  for (const l of lines) {
    const s = Math.round(l.size * 2) / 2;
    weight.set(s, (weight.get(s) ?? 0) + l.text.length);
  }
  let best = 0;
  let most = -1;
  for (const [s, w] of weight) if (w > most) [best, most] = [s, w];
  return best;
}

function toSections(lines: Line[]): Section[] {
  const body = bodySize(lines);
  const isHeading = (l: Line) => body > 0 && l.size >= body * 1.2 && l.text.length <= 120;
  const sizes = [...new Set(lines.filter(isHeading).map((l) => Math.round(l.size)))].sort((a, b) => b - a);
  const sections: Section[] = [];
  let path: { level: number; text: string }[] = [];
  let buf: string[] = [];
  const flush = () => {
    if (buf.length) sections.push({ headingPath: path.map((h) => h.text), text: buf.join("\n") });
    buf = [];
  };
  for (const l of lines) {
    if (isHeading(l)) {
      flush();
      const level = Math.min(6, sizes.indexOf(Math.round(l.size)) + 1);
      path = path.filter((h) => h.level < level);
      path.push({ level, text: l.text });
    } else {
      buf.push(l.text);
    }
  }
  flush();
  return sections;
}

export async function extractPdf(
  bytes: Uint8Array,
  limits: ExtractLimits,
  clock: Deadline,
): Promise<Omit<ExtractedDocument, "hash" | "canonical" | "noindex" | "links" | "navigationOnly">> {
  checkPdfStreams(
    bytes,
    { perStreamBytes: limits.maxPdfStreamBytes, totalBytes: limits.maxPdfStreamsBytes },
    clock,
  );
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // PDF.js takes ownership of the buffer it is given; a copy keeps the caller's bytes intact.
    pdf = await getDocumentProxy(new Uint8Array(bytes), {
      isEvalSupported: false,
      stopAtErrors: false,
      verbosity: 0,
    });
  } catch (e) {
    const encrypted = (e as { name?: string }).name === "PasswordException";
    throw refusal(
      "unreadable",
      encrypted ? "The PDF is password-protected." : "The file is not a readable PDF.",
    );
  }
  try {
    if (pdf.numPages > limits.maxPages) {
      throw refusal(
        "too_many_pages",
        `The PDF has ${pdf.numPages} pages; at most ${limits.maxPages} are read.`,
      );
    }
    const lines: Line[] = [];
    let chars = 0;
    for (let n = 1; n <= pdf.numPages; n++) {
      clock.check(`page ${n}`);
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      page.cleanup();
      for (const line of linesOf(content.items.filter((i) => "str" in i) as TextItem[])) {
        lines.push(line);
        chars += line.text.length + 1;
      }
      if (chars > limits.maxTextChars)
        throw refusal("too_much_text", "The PDF holds more text than the limit allows.");
    }
    const meta = await pdf.getMetadata().catch(() => null);
    const info = (meta?.info ?? {}) as { Title?: unknown; Language?: unknown };
    const sections = toSections(lines);
    const title =
      (typeof info.Title === "string" && collapse(info.Title)) || sections[0]?.headingPath[0] || null;
    const lang = typeof info.Language === "string" && info.Language ? info.Language.toLowerCase() : null;
    return { title, lang, sections };
  } finally {
    await pdf.destroy();
  }
}
