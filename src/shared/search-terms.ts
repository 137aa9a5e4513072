// The conversation search box's little syntax, shared by the query (src/lib/db/queries/insights-list.ts) and
// the page's hint: words and "quoted phrases" must all appear in one message, a leading minus excludes one.
// Matching is by substring (so it works for Japanese, which has no spaces between words), accent- and
// case-blind; the folding itself happens in SQL (michi_search_fold) so the index and the query agree.

export type SearchTerms = { include: string[]; exclude: string[] };

const TOKEN = /(-?)(?:"([^"]*)"?|(\S+))/g;

/** At most this many terms are honoured, so a pasted paragraph cannot turn into a huge query. */
export const MAX_SEARCH_TERMS = 8;

export function parseSearch(raw: string): SearchTerms {
  const include: string[] = [];
  const exclude: string[] = [];
  for (const m of raw.matchAll(TOKEN)) {
    const text = (m[2] ?? m[3] ?? "").trim();
    if (!text || text === "-") continue;
    if (include.length + exclude.length >= MAX_SEARCH_TERMS) break;
    (m[1] ? exclude : include).push(text);
  }
  return { include, exclude };
}

/** The term as a LIKE pattern that matches it anywhere: its own % _ and \ are taken literally. */
export function containsPattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
