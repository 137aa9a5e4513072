import "server-only";

// A look at an HTML page's tags before it is parsed: how many elements it has and how deep they nest.
// Parsing time grows with the elements (and badly with the depth), so a hostile page of a few megabytes
// could hold the thread for minutes; counting tags in the source takes milliseconds. The count is an
// estimate (no real tokenizer): scripts, styles and comments are skipped, void elements and elements whose
// end tag HTML lets the parser supply (p, li, td…) do not add depth.

const OPAQUE = /<(script|style|textarea|title)\b[^>]*>[\s\S]*?<\/\1\s*>|<!--[\s\S]*?-->/gi;
const TAG = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)\b[^>]*?(\/?)>/g;
const NO_DEPTH = new Set(
  "area base br col embed hr img input link meta param source track wbr p li dt dd tr td th option optgroup thead tbody tfoot colgroup caption rb rt rp".split(
    " ",
  ),
);

export type MarkupShape = { elements: number; depth: number };

export function scanMarkup(html: string): MarkupShape {
  const source = html.replace(OPAQUE, "");
  let elements = 0;
  let depth = 0;
  let deepest = 0;
  for (const m of source.matchAll(TAG)) {
    const closing = m[1] === "/";
    const name = (m[2] ?? "").toLowerCase();
    if (!closing) elements++;
    if (NO_DEPTH.has(name) || m[3] === "/") continue;
    if (closing) depth = Math.max(0, depth - 1);
    else if (++depth > deepest) deepest = depth;
  }
  return { elements, depth: deepest };
}
