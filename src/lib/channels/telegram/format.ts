import "server-only";
import { splitMessage, TELEGRAM_TEXT_MAX } from "../split";

// The model's Markdown is sent with parse_mode HTML (https://core.telegram.org/bots/api#html-style), not
// MarkdownV2: HTML needs only <, > and & escaped in text (and " in an href), while MarkdownV2 wants every one
// of _*[]()~`>#+-=|{}.! escaped outside entities and refuses the whole message ("can't parse entities") at
// the first one missed; an answer is full of dots, dashes and exclamation marks. The tags used are the ones
// the Bot API lists: <b> <i> <s> <code> <pre> <a href> <blockquote>. Headings turn bold, lists get bullets.

const FENCE = /^\s*(```|~~~)\s*([\w+#.-]*)\s*$/;
const SLOT = "\uE003";

const escapeText = (s: string) => s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
const escapeAttr = (s: string) => escapeText(s).replaceAll('"', "&quot;");

// Telegram accepts these schemes in a link; anything else (javascript:, data:) stays visible text.
const LINKABLE = /^(https?:\/\/|mailto:|tg:\/\/)/i;

function inline(line: string): string {
  const kept: string[] = [];
  const keep = (s: string) => `${SLOT}${kept.push(s) - 1}${SLOT}`;
  let s = line
    .replace(/`([^`\n]+)`/g, (_, c: string) => keep(`<code>${escapeText(c)}</code>`))
    .replace(
      /!?\[([^\]\n]*)\]\(\s*<?((?:[^()\s>]|\([^()\s]*\))+)>?(?:\s+"[^"]*")?\s*\)/g,
      (_, t: string, u: string) => {
        const text = t.trim() || u;
        return keep(
          LINKABLE.test(u)
            ? `<a href="${escapeAttr(u)}">${inlineText(text)}</a>`
            : escapeText(`${text} (${u})`),
        );
      },
    )
    .replace(/<((?:https?|mailto):[^>\s]+)>/g, (_, u: string) => keep(escapeText(u)))
    // Bare URLs are kept whole, so an underscore or asterisk in a path is not read as emphasis.
    .replace(/\b(?:https?:\/\/|mailto:)[^\s<>()]+[^\s<>().,;:!?'"]/g, (u) => keep(escapeText(u)));
  s = inlineText(s);
  return s.replace(new RegExp(`${SLOT}(\\d+)${SLOT}`, "g"), (_, i: string) => kept[Number(i)]!);
}

/** Escapes text and turns Markdown emphasis into tags (no code or links in here). */
function inlineText(text: string): string {
  return escapeText(text)
    .replace(/(\*\*\*|___)(?=\S)(.+?)(?<=\S)\1/g, "<b><i>$2</i></b>")
    .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, "<b>$2</b>")
    .replace(/(?<![\w*])\*(?=\S)([^*]+?)(?<=\S)\*(?![\w*])/g, "<i>$1</i>")
    .replace(/(?<![\w_])_(?=\S)([^_]+?)(?<=\S)_(?![\w_])/g, "<i>$1</i>")
    .replace(/~~(?=\S)(.+?)(?<=\S)~~/g, "<s>$1</s>");
}

/** Markdown → the HTML subset Telegram's parser accepts, every other character escaped. */
export function toTelegramHtml(markdown: string): string {
  const out: string[] = [];
  let code: { lang: string; lines: string[] } | null = null;
  let quote: string[] = [];
  const flushQuote = () => {
    if (quote.length) out.push(`<blockquote>${quote.join("\n")}</blockquote>`);
    quote = [];
  };
  for (const raw of markdown.replace(/\r\n?/g, "\n").split("\n")) {
    if (code) {
      if (/^\s*(```|~~~)\s*$/.test(raw)) {
        const cls = code.lang ? ` class="language-${escapeAttr(code.lang)}"` : "";
        out.push(`<pre><code${cls}>${escapeText(code.lines.join("\n"))}</code></pre>`);
        code = null;
      } else code.lines.push(raw);
      continue;
    }
    const f = FENCE.exec(raw);
    if (f) {
      flushQuote();
      code = { lang: f[2] ?? "", lines: [] };
      continue;
    }
    const q = /^\s{0,3}>\s?(.*)$/.exec(raw);
    if (q) {
      quote.push(inline(q[1]!));
      continue;
    }
    flushQuote();
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(raw);
    if (heading) {
      const text = inline(heading[1]!.replace(/^\*\*(.*)\*\*$/, "$1"));
      out.push(text ? `<b>${text}</b>` : "");
      continue;
    }
    if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(raw)) {
      out.push("");
      continue;
    }
    const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(raw);
    out.push(bullet ? `${bullet[1]}• ${inline(bullet[2]!)}` : inline(raw));
  }
  flushQuote();
  if (code) {
    const cls = code.lang ? ` class="language-${escapeAttr(code.lang)}"` : "";
    out.push(`<pre><code${cls}>${escapeText(code.lines.join("\n"))}</code></pre>`);
  }
  return out
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** An answer as the Telegram messages to send (HTML). Tags and escapes do not count towards Telegram's
 * 4,096 characters and every conversion here only shortens the visible text, so Markdown parts that fit
 * stay within the limit. */
export function toTelegramMessages(markdown: string, max = TELEGRAM_TEXT_MAX): string[] {
  return splitMessage(markdown, max).map(toTelegramHtml);
}
