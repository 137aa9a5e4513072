// The sources an answer cites, shown under it in the widget, the transcript and the tool trace. Citations come
// only from the search_knowledge results of the same turn (pages the platform indexed itself): a URL written
// in the model's text is never shown as a source. Plain code, shared by the server and the widget.
//
// A passage from a document the business uploaded has no public address (the file is the business's data,
// kept under row-level security and never served to visitors): it is cited by its title alone, without a
// link. A signed link would publish the whole file to anyone the answer is shown or forwarded to, which the
// business never chose by uploading it.

/** `url` only for web pages (always https); a cited document has its title alone. */
export type Citation = { n: number; title: string; url?: string };

const MAX_TITLE = 120;

type Run = { packId: string; result: string };

// A citation marker: [1] or [1, 3]. Followed by "(" it is a Markdown link's text ("[1](https://…)"), not a marker.
const MARKER = /\[(\d{1,2}(?:\s*,\s*\d{1,2})*)\](?!\()/g;

const numbersOf = (marker: string) => marker.split(",").map((n) => Number(n.trim()));

function passagesOf(result: string): Citation[] {
  try {
    const r = JSON.parse(result) as { passages?: unknown };
    if (!Array.isArray(r.passages)) return [];
    return r.passages.flatMap((p: unknown) => {
      const o = p as { n?: unknown; title?: unknown; url?: unknown; document?: unknown };
      if (typeof o.n !== "number") return [];
      const title = typeof o.title === "string" ? o.title : "";
      if (typeof o.url === "string") return /^https:\/\//.test(o.url) ? [{ n: o.n, title, url: o.url }] : [];
      const name = typeof o.document === "string" && o.document ? o.document : title;
      return name ? [{ n: o.n, title: name.slice(0, MAX_TITLE) }] : [];
    });
  } catch {
    return [];
  }
}

/**
 * The passages of the turn's last search that returned any, cited by the answer as [n], in the order of their
 * numbers. The model may search a second time when the first found nothing strong; a second search that found
 * nothing leaves the first one's passages as those the answer can cite.
 */
export function citationsFrom(answer: string, runs: readonly Run[]): Citation[] {
  const found = runs
    .filter((r) => r.packId === "search_knowledge")
    .map((r) => passagesOf(r.result))
    .filter((p) => p.length > 0);
  const last = found[found.length - 1] ?? [];
  if (last.length === 0) return [];
  const cited = new Set<number>();
  for (const m of answer.matchAll(MARKER)) for (const n of numbersOf(m[1]!)) cited.add(n);
  const seen = new Set<string>();
  const key = (p: Citation) => p.url ?? `document:${p.title}`;
  return last
    .filter((p) => cited.has(p.n))
    .sort((a, b) => a.n - b.n)
    .filter((p) => (seen.has(key(p)) ? false : (seen.add(key(p)), true)));
}

/**
 * The answer with each marker (the ones citationsFrom reads) replaced by `replace(numbers)`; an empty
 * replacement takes the spaces before the marker with it, so "nine [2]." becomes "nine.". For readers that
 * show no source list beside the text (WhatsApp, Telegram: src/lib/channels/sources.ts).
 */
export function rewriteMarkers(answer: string, replace: (numbers: number[]) => string): string {
  return answer.replace(new RegExp(`([ \\t]*)${MARKER.source}`, "g"), (_, space: string, list: string) => {
    const out = replace(numbersOf(list));
    return out ? `${space}${out}` : "";
  });
}

/** Checks a citation list that arrived over the network (the widget trusts nothing it did not check). */
export function safeCitations(value: unknown): Citation[] {
  if (!Array.isArray(value)) return [];
  return value
    .flatMap((c: unknown): Citation[] => {
      const o = c as { n?: unknown; title?: unknown; url?: unknown } | null;
      if (!o || typeof o.n !== "number" || typeof o.title !== "string") return [];
      if (o.url === undefined) return o.title ? [{ n: o.n, title: o.title.slice(0, MAX_TITLE) }] : [];
      return typeof o.url === "string" && /^https:\/\//.test(o.url)
        ? [{ n: o.n, title: o.title, url: o.url }]
        : [];
    })
    .slice(0, 8);
}
