// The sources an answer cites, shown under it in the widget, the transcript and the tool trace. Citations come
// only from the search_knowledge results of the same turn (pages the platform indexed itself): a URL written
// in the model's text is never shown as a source. Plain code, shared by the server and the widget.

export type Citation = { n: number; title: string; url: string };

type Run = { packId: string; result: string };

const MARKER = /\[(\d{1,2}(?:\s*,\s*\d{1,2})*)\]/g;

function passagesOf(result: string): Citation[] {
  try {
    const r = JSON.parse(result) as { passages?: unknown };
    if (!Array.isArray(r.passages)) return [];
    return r.passages.flatMap((p: unknown) => {
      const o = p as { n?: unknown; title?: unknown; url?: unknown };
      if (typeof o.n !== "number" || typeof o.url !== "string" || !/^https:\/\//.test(o.url)) return [];
      return [{ n: o.n, title: typeof o.title === "string" ? o.title : "", url: o.url }];
    });
  } catch {
    return [];
  }
}

/** The passages of the turn's last search that the answer cites as [n], in the order of their numbers. */
export function citationsFrom(answer: string, runs: readonly Run[]): Citation[] {
  const searches = runs.filter((r) => r.packId === "search_knowledge");
  const last = searches.length ? passagesOf(searches[searches.length - 1]!.result) : [];
  if (last.length === 0) return [];
  const cited = new Set<number>();
  for (const m of answer.matchAll(MARKER)) for (const n of m[1]!.split(",")) cited.add(Number(n.trim()));
  const seen = new Set<string>();
  return last
    .filter((p) => cited.has(p.n))
    .sort((a, b) => a.n - b.n)
    .filter((p) => (seen.has(p.url) ? false : (seen.add(p.url), true)));
}

/** Checks a citation list that arrived over the network (the widget trusts nothing it did not check). */
export function safeCitations(value: unknown): Citation[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter(
      (c): c is Citation =>
        !!c &&
        typeof c.n === "number" &&
        typeof c.url === "string" &&
        /^https:\/\//.test(c.url) &&
        typeof c.title === "string",
    )
    .slice(0, 8);
}
