import "server-only";

// Sitemaps (sitemaps.org protocol): a <urlset> lists pages, a <sitemapindex> lists further sitemaps. Gzip is
// inflated by the page fetcher, under its size cap. A sitemap is any site's input and may be 20 MB, so it is
// never parsed into a tree: one pass over the bytes looks for a <loc> directly inside a <url> or <sitemap>
// element (any namespace prefix), jumping from '<' to '<' with Buffer.indexOf, so the work is linear in the
// bytes whatever they hold (no regular expression runs over the document, nothing backtracks). The pass hands
// the event loop back every SLICE_BYTES and stops at the caller's entry cap. Comments, processing instructions
// and a DOCTYPE are skipped unread: no DTD, no external entity, only the five XML entities and numeric
// character references are decoded, inside a <loc> only.

export type SitemapScan = { pages: string[]; sitemaps: string[]; truncated: boolean };

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const BANG = 0x21;
const QUESTION = 0x3f;
/** Bytes scanned between two yields to the event loop. */
const SLICE_BYTES = 256 * 1024;
/** A longer <loc> is no URL (the protocol says under 2,048 characters): it is skipped. */
const MAX_LOC_BYTES = 8 * 1024;
/** Only the first levels matter (root, url or sitemap, loc); deeper names are not kept. */
const MAX_KEPT_DEPTH = 8;

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/** The five predefined XML entities and character references; anything else is left as written. */
export function decodeXmlText(s: string): string {
  if (!s.includes("&")) return s;
  return s.replace(/&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|amp|lt|gt|quot|apos);/g, (whole, ref: string) => {
    if (ref[0] !== "#") return ENTITIES[ref] ?? whole;
    const code = ref[1] === "x" ? Number.parseInt(ref.slice(2), 16) : Number.parseInt(ref.slice(1), 10);
    const valid = code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff);
    return valid ? String.fromCodePoint(code) : whole;
  });
}

function startsWith(b: Buffer, at: number, s: string): boolean {
  if (at + s.length > b.length) return false;
  for (let k = 0; k < s.length; k++) if (b[at + k] !== s.charCodeAt(k)) return false;
  return true;
}

/** The index just past `close` searched from `from`, or the end of the buffer. */
function past(b: Buffer, from: number, close: string): number {
  const at = b.indexOf(close, from, "latin1");
  return at < 0 ? b.length : at + close.length;
}

const isSpace = (c: number | undefined) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** Past a <!DOCTYPE …> (its internal subset in brackets included, quoted strings respected), never read. */
function pastDeclaration(b: Buffer, from: number): number {
  let depth = 0;
  let quote = 0;
  for (let i = from; i < b.length; i++) {
    const c = b[i]!;
    if (quote) {
      if (c === quote) quote = 0;
    } else if (c === 0x22 || c === 0x27) quote = c;
    else if (c === 0x5b) depth++;
    else if (c === 0x5d) depth = Math.max(0, depth - 1);
    else if (c === GT && depth === 0) return i + 1;
  }
  return b.length;
}

/** The end of a tag opened at `from` ('>' outside quoted attribute values), or -1. */
function tagEnd(b: Buffer, from: number): number {
  let quote = 0;
  for (let i = from; i < b.length; i++) {
    const c = b[i]!;
    if (quote) {
      if (c === quote) quote = 0;
    } else if (c === 0x22 || c === 0x27) quote = c;
    else if (c === GT) return i;
  }
  return -1;
}

/** The element name's local part (after any prefix), lower-cased: `sm:URL` → `url`. */
function localName(b: Buffer, from: number, to: number): string {
  let end = from;
  while (end < to && !isSpace(b[end]) && b[end] !== SLASH && b[end] !== GT) end++;
  const name = b.toString("latin1", from, end);
  return name.slice(name.lastIndexOf(":") + 1).toLowerCase();
}

/** A <loc>'s text from `from` to its end tag: character data decoded, CDATA kept as written. */
function readLoc(b: Buffer, from: number): { text: string | null; end: number } {
  let text = "";
  let p = from;
  let size = 0;
  for (;;) {
    const lt = b.indexOf(LT, p);
    if (lt < 0) return { text: null, end: b.length };
    size += lt - p;
    if (size <= MAX_LOC_BYTES) text += decodeXmlText(b.toString("utf8", p, lt));
    if (startsWith(b, lt, "<![CDATA[")) {
      const close = b.indexOf("]]>", lt + 9, "latin1");
      const stop = close < 0 ? b.length : close;
      size += stop - lt - 9;
      if (size <= MAX_LOC_BYTES) text += b.toString("utf8", lt + 9, stop);
      p = close < 0 ? b.length : close + 3;
      continue;
    }
    if (startsWith(b, lt, "<!--")) {
      p = past(b, lt + 4, "-->");
      continue;
    }
    // The end tag (or a stray element, which ends the entry too).
    const gt = tagEnd(b, lt + 1);
    const end = gt < 0 ? b.length : gt + 1;
    return { text: size <= MAX_LOC_BYTES ? text.trim() : null, end };
  }
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The page and sitemap addresses a sitemap lists, at most `maxPages` pages and `maxSitemaps` sitemaps
 * (`truncated` when it listed more). Malformed XML gives what could be read, never an error.
 */
export async function scanSitemap(
  b: Buffer,
  caps: { maxPages: number; maxSitemaps: number },
): Promise<SitemapScan> {
  const out: SitemapScan = { pages: [], sitemaps: [], truncated: false };
  const names: string[] = [];
  let depth = 0;
  let i = 0;
  let nextYield = SLICE_BYTES;
  while (i < b.length) {
    const lt = b.indexOf(LT, i);
    if (lt < 0) break;
    if (lt >= nextYield) {
      await yieldToLoop();
      nextYield = lt + SLICE_BYTES;
    }
    const c = b[lt + 1];
    if (c === BANG) {
      if (startsWith(b, lt, "<!--")) i = past(b, lt + 4, "-->");
      else if (startsWith(b, lt, "<![CDATA[")) i = past(b, lt + 9, "]]>");
      else i = pastDeclaration(b, lt + 2);
      continue;
    }
    if (c === QUESTION) {
      i = past(b, lt + 2, "?>");
      continue;
    }
    const gt = tagEnd(b, lt + 1);
    if (gt < 0) break;
    i = gt + 1;
    if (c === SLASH) {
      depth = Math.max(0, depth - 1);
      if (names.length > depth) names.length = depth;
      continue;
    }
    if (b[gt - 1] === SLASH) continue; // <url/>: an empty element opens nothing
    const name = localName(b, lt + 1, gt);
    const parent = depth === 2 ? names[1] : undefined;
    if (name === "loc" && (parent === "url" || parent === "sitemap")) {
      const loc = readLoc(b, i);
      i = loc.end;
      if (!loc.text) continue;
      const list = parent === "url" ? out.pages : out.sitemaps;
      const cap = parent === "url" ? caps.maxPages : caps.maxSitemaps;
      if (list.length >= cap) {
        out.truncated = true;
        break;
      }
      list.push(loc.text);
      continue;
    }
    if (depth < MAX_KEPT_DEPTH) names[depth] = name;
    depth++;
  }
  return out;
}
