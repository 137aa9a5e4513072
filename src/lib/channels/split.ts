import "server-only";

// Long answers are sent as several messages (WhatsApp and Telegram both stop at 4,096 characters). A cut
// lands on the last paragraph break that fits, else a line break, else a sentence end, else a space; never
// inside a link, a URL, inline code, a code block or a formatting pair, so no part shows a broken link or a
// stray asterisk. Only a span longer than a whole message is cut inside, at a space when it has one.
// Lengths are UTF-16 code units, the unit both APIs count in; a surrogate pair is never split.

export const WHATSAPP_TEXT_MAX = 4096;
export const TELEGRAM_TEXT_MAX = 4096;

// Spans a cut must not enter, in Markdown and in the channels' own formats (WhatsApp's *bold*, Telegram HTML).
const PROTECTED = [
  /```[\s\S]*?```/g, // code block (Markdown and WhatsApp monospace)
  /<(pre|code|a|b|strong|i|em|s|u|del|blockquote|tg-spoiler)\b[^>]*>[\s\S]*?<\/\1>/g, // Telegram HTML element
  /!?\[[^\]\n]*\]\((?:[^()\s]|\([^()\s]*\))*\)/g, // Markdown link or image (one level of brackets in the URL)
  /`[^`\n]+`/g, // inline code
  /\*\*[^\n]+?\*\*|__[^\n]+?__|~~[^\n]+?~~/g, // Markdown bold, strike
  /(?<![\w*])\*(?!\s)[^*\n]+?(?<!\s)\*(?![\w*])/g, // *bold* / *italic*
  /(?<![\w_])_(?!\s)[^_\n]+?(?<!\s)_(?![\w_])/g, // _italic_
  /(?<![\w~])~(?!\s)[^~\n]+?(?<!\s)~(?![\w~])/g, // ~strike~
  /[^\s()]+ \((?:https?|mailto):[^\s)]+\)/g, // WhatsApp-style "text (url)", the word before it included
  /\b(?:https?:\/\/|mailto:)[^\s<>]+/g, // bare URL
];

type Span = [start: number, end: number];

function protectedSpans(text: string): Span[] {
  const spans: Span[] = [];
  for (const re of PROTECTED) {
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) spans.push([m.index, m.index + m[0].length]);
  }
  return spans;
}

const inside = (spans: Span[], at: number) => spans.some(([s, e]) => at > s && at < e);

// Where a part may end, best first. Each match's end (minus trailing spaces) is the end of the part.
const BREAKS = [/\n[ \t]*\n/g, /\n/g, /[.!?…。！？](?=\s)/g, /[ \t]+/g];

function lastBreak(text: string, max: number, re: RegExp, spans: Span[]): number {
  let best = -1;
  re.lastIndex = 0;
  for (let m = re.exec(text); m && m.index <= max; m = re.exec(text)) {
    // A sentence break keeps its punctuation; the others end before the whitespace.
    const end = re === BREAKS[2] ? m.index + m[0].length : m.index;
    if (end > 0 && end <= max && !inside(spans, end)) best = end;
  }
  return best;
}

function cutAt(text: string, max: number, spans: Span[]): number {
  // A paragraph break very early would leave a tiny part; a later, finer break is better.
  const floor = Math.floor(max / 4);
  for (const re of BREAKS) {
    const best = lastBreak(text, max, re, spans);
    if (best > floor || (best > 0 && re === BREAKS.at(-1))) return best;
  }
  // One span is longer than a whole message (a long code block, a huge link): cut inside it, still at the
  // best kind of break it has.
  for (const re of BREAKS) {
    const best = lastBreak(text, max, re, []);
    if (best > floor) return best;
  }
  const code = text.charCodeAt(max - 1);
  return code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
}

const FENCE_MARK = /```/g;
const openFence = (part: string) => (part.match(FENCE_MARK)?.length ?? 0) % 2 === 1;

/** Splits `text` into parts of at most `max` characters each (one part when it fits). */
export function splitMessage(text: string, max: number): string[] {
  if (max < 2) throw new RangeError("max must be at least 2");
  const parts: string[] = [];
  let rest = text.trim();
  while (rest.length > max) {
    const spans = protectedSpans(rest);
    let at = cutAt(rest, max, spans);
    // A cut inside a code block closes it in this part and opens it again in the next, so both still
    // show as code; the four characters for the closing fence are kept free.
    let fenced = max >= 64 && openFence(rest.slice(0, at));
    if (fenced) {
      at = cutAt(rest, max - 4, spans);
      fenced = openFence(rest.slice(0, at));
    }
    const part = `${rest.slice(0, at).trimEnd()}${fenced ? "\n```" : ""}`;
    if (part) parts.push(part);
    rest = rest.slice(at).replace(/^[ \t]*\n?/, "");
    if (fenced) rest = `\`\`\`\n${rest}`;
    else rest = rest.replace(/^\s+/, "");
  }
  if (rest) parts.push(rest);
  return parts;
}
