import "server-only";

// Query-biased snippets: a passage cut to the sentences that share words with the queries, in page order,
// within a character budget, so the model reads what bears on the question and five pages fit the result cap.
// Word matching is deliberately crude (case and accents folded, the first five letters compared, a stand-in for
// stemming in any language); the ranking that chose the passage has already done the real matching.

const fold = (s: string) => s.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();

/** Words of three letters or more (any script), cut to their first five letters. */
function stems(text: string): Set<string> {
  const out = new Set<string>();
  for (const w of fold(text).match(/[\p{L}\p{N}]{3,}/gu) ?? []) out.add(w.slice(0, 5));
  // Unspaced scripts (Japanese): pairs of characters stand in for words.
  for (const run of fold(text).match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]{2,}/gu) ?? [])
    for (let i = 0; i + 2 <= run.length; i++) out.add(run.slice(i, i + 2));
  return out;
}

function sentences(text: string): string[] {
  return text
    .replace(/\s+/g, " ")
    .trim()
    .split(/(?<=[.!?。！？])\s+|(?<=[。！？])|\s+(?=- )/u)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The passage cut to its best-matching sentences (in their order) within `max` characters; "…" marks gaps. */
export function snippet(text: string, queries: readonly string[], max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= max) return flat;
  const wanted = stems(queries.join(" "));
  const list = sentences(flat);
  const scored = list.map((s, i) => {
    let hits = 0;
    for (const w of stems(s)) if (wanted.has(w)) hits++;
    return { i, s, hits };
  });
  // Best sentences first (earlier ones win ties: a passage usually leads with its point).
  const order = [...scored].sort((a, b) => b.hits - a.hits || a.i - b.i);
  const keep = new Set<number>();
  let used = 0;
  for (const c of order) {
    if (keep.size > 0 && c.hits === 0) break;
    const cost = Math.min(c.s.length, max) + 2;
    if (used + cost > max && keep.size > 0) continue;
    keep.add(c.i);
    used += cost;
  }
  const parts: string[] = [];
  let last = -1;
  for (const i of [...keep].sort((a, b) => a - b)) {
    if (last >= 0 && i !== last + 1) parts.push("…");
    else if (last < 0 && i > 0) parts.push("…");
    parts.push(scored[i]!.s);
    last = i;
  }
  if (last < list.length - 1) parts.push("…");
  const out = parts.join(" ");
  return out.length <= max ? out : `${out.slice(0, max - 1).trimEnd()}…`;
}
