import "server-only";
import { type ExtractLimits, refusal, type Section } from "./types";

// Markdown and plain text into sections. Markdown's ATX (`## Title`) and setext (`Title` over `===`/`---`)
// headings open sections; code fences are kept as text and never read as headings; inline markup (links,
// emphasis, images, inline code, HTML tags) is reduced to its words.

type Heading = { level: number; text: string };

function inlineText(line: string): string {
  return line
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]+)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]+)\]\[[^\]]*\]/g, "$1")
    .replace(/<\/?[a-z][^>]*>/gi, "")
    .replace(/(\*\*|__)(.+?)\1/g, "$2")
    .replace(/(^|[^\w*])[*_]([^*_\s][^*_]*?)[*_](?=[^\w*]|$)/g, "$1$2")
    .replace(/`([^`]+)`/g, "$1")
    .replace(/^\s{0,3}>\s?/, "")
    .replace(/^\s*[*+-]\s+/, "- ")
    .replace(/\s+$/, "");
}

class Sections {
  readonly list: Section[] = [];
  private path: Heading[] = [];
  private lines: string[] = [];
  chars = 0;

  line(text: string): void {
    this.lines.push(text);
    this.chars += text.length + 1;
  }

  /** Removes and returns the last line (a setext heading's text). */
  takeLast(): string | undefined {
    return this.lines.pop();
  }

  heading(level: number, text: string): void {
    this.flush();
    this.path = this.path.filter((h) => h.level < level);
    if (text) this.path.push({ level, text });
  }

  flush(): void {
    const text = this.lines
      .join("\n")
      .replace(/\n{3,}/g, "\n\n")
      .trim();
    if (text) this.list.push({ headingPath: this.path.map((h) => h.text), text });
    this.lines = [];
  }
}

export function markdownSections(
  source: string,
  limits: ExtractLimits,
): { title: string | null; sections: Section[] } {
  const out = new Sections();
  let fence: string | null = null;
  let title: string | null = null;
  let previousBlank = true;
  for (const raw of source.replace(/\r\n?/g, "\n").split("\n")) {
    const fenceMark = /^\s{0,3}(```+|~~~+)/.exec(raw)?.[1];
    if (fence) {
      if (fenceMark && fenceMark[0] === fence[0] && fenceMark.length >= fence.length) fence = null;
      else out.line(raw.trimEnd());
      continue;
    }
    if (fenceMark) {
      fence = fenceMark;
      continue;
    }
    const atx = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(raw);
    const setext = /^\s{0,3}(=+|-+)\s*$/.exec(raw);
    if (atx) {
      const text = inlineText(atx[2] ?? "").trim();
      out.heading(atx[1]?.length ?? 1, text);
      if (!title && atx[1] === "#") title = text;
    } else if (setext && !previousBlank) {
      const text = inlineText(out.takeLast() ?? "").trim();
      const level = setext[1]?.startsWith("=") ? 1 : 2;
      out.heading(level, text);
      if (!title && level === 1) title = text;
    } else if (!/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(raw)) {
      out.line(inlineText(raw));
    }
    previousBlank = raw.trim() === "";
    if (out.chars > limits.maxTextChars)
      throw refusal("too_much_text", "The file holds more text than the limit allows.");
  }
  out.flush();
  return { title, sections: out.list };
}

export function plainTextSections(source: string, limits: ExtractLimits): Section[] {
  if (source.length > limits.maxTextChars)
    throw refusal("too_much_text", "The file holds more text than the limit allows.");
  const text = source
    .replace(/\r\n?/g, "\n")
    .replace(/[ \t]+$/gm, "")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  return text ? [{ headingPath: [], text }] : [];
}
