import "server-only";
import { splitMessage, WHATSAPP_TEXT_MAX } from "../split";

// The model answers in Markdown; WhatsApp has its own small syntax
// (https://faq.whatsapp.com/539178204879377: *bold*, _italic_, ~strike~, ```monospace```, `inline code`,
// "> " quotes, "* " / "- " and "1. " lists) and no links with text, so a link becomes "text (url)". Headings
// turn bold; code is left exactly as written.

const FENCE = /^\s*(```|~~~)/;
// Private-use characters stand in for markers while the line is rewritten, so a converted *bold* is not
// read again as Markdown *italic*.
const BOLD = "\uE000";
const ITALIC = "\uE001";
const STRIKE = "\uE002";
const SLOT = "\uE003";

function inline(line: string): string {
  const kept: string[] = [];
  const keep = (s: string) => `${SLOT}${kept.push(s) - 1}${SLOT}`;
  let s = line
    // Inline code: kept verbatim (WhatsApp shows `code` as inline code).
    .replace(/`([^`\n]+)`/g, (_, c: string) => keep(`\`${c}\``))
    // Images and links: "text (url)", or the bare url when the text is the url.
    .replace(
      /!?\[([^\]\n]*)\]\(\s*<?((?:[^()\s>]|\([^()\s]*\))+)>?(?:\s+"[^"]*")?\s*\)/g,
      (_, t: string, u: string) => keep(!t.trim() || t.trim() === u ? u : `${t.trim()} (${u})`),
    )
    .replace(/<((?:https?|mailto):[^>\s]+)>/g, (_, u: string) => keep(u))
    .replace(/\b(?:https?:\/\/|mailto:)[^\s<>()]+[^\s<>().,;:!?'"]/g, (u) => keep(u));
  s = s
    .replace(/(\*\*\*|___)(?=\S)(.+?)(?<=\S)\1/g, `${BOLD}${ITALIC}$2${ITALIC}${BOLD}`)
    .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, `${BOLD}$2${BOLD}`)
    .replace(/(?<![\w*])\*(?=\S)([^*]+?)(?<=\S)\*(?![\w*])/g, `${ITALIC}$1${ITALIC}`)
    .replace(/(?<![\w_])_(?=\S)([^_]+?)(?<=\S)_(?![\w_])/g, `${ITALIC}$1${ITALIC}`)
    .replace(/~~(?=\S)(.+?)(?<=\S)~~/g, `${STRIKE}$1${STRIKE}`);
  return s
    .replaceAll(BOLD, "*")
    .replaceAll(ITALIC, "_")
    .replaceAll(STRIKE, "~")
    .replace(new RegExp(`${SLOT}(\\d+)${SLOT}`, "g"), (_, i: string) => kept[Number(i)]!);
}

/** Markdown → WhatsApp's own formatting. */
export function toWhatsAppText(markdown: string): string {
  const out: string[] = [];
  let fence: string | null = null;
  for (const raw of markdown.replace(/\r\n?/g, "\n").split("\n")) {
    const f = FENCE.exec(raw);
    if (fence) {
      if (f && f[1] === fence) {
        out.push("```");
        fence = null;
      } else out.push(raw);
      continue;
    }
    if (f) {
      // WhatsApp has no language tag; the opening line is just the three backticks.
      fence = f[1]!;
      out.push("```");
      continue;
    }
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(raw);
    if (heading) {
      const text = inline(heading[1]!).replace(/^\*(.*)\*$/, "$1");
      out.push(text ? `*${text}*` : "");
      continue;
    }
    if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(raw)) {
      out.push("");
      continue;
    }
    const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(raw);
    if (bullet) {
      out.push(`${bullet[1]}• ${inline(bullet[2]!)}`);
      continue;
    }
    out.push(inline(raw));
  }
  if (fence) out.push("```");
  return out
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** An answer as the WhatsApp messages to send. Every conversion here keeps or shortens the text (links
 * lose their brackets, ** becomes *), so Markdown parts that fit stay within the 4,096 characters. */
export function toWhatsAppMessages(markdown: string, max = WHATSAPP_TEXT_MAX): string[] {
  return splitMessage(markdown, max).map(toWhatsAppText);
}
