// A site's own abbreviations, learned from the pages that define them: "Personal Identity Verification (PIV)"
// or "PIV (Personal Identity Verification)". Full text alone cannot bridge a visitor who types "piv" to a
// section that only spells it out, or the other way round; without an embeddings model these pairs are the
// one vocabulary bridge the pages themselves vouch for. Pure functions: the index stores the pairs per
// business (knowledge_terms, drizzle/0045) and a search adds the other form to the query.

export type Abbreviation = { short: string; long: string };

/** Words an expansion may leave out of the initials ("Platform as a Service" is PaaS, "Department of …"). */
const MINOR = new Set(["of", "and", "the", "for", "to", "a", "an", "in", "on", "as", "at", "by", "&"]);

/** An abbreviation: 2 to 8 characters, a letter first, at least two capitals ("PIV", "PaaS", "IAL2"). */
const SHORT = /^[A-Za-z][A-Za-z0-9]{1,7}$/;
const isShort = (s: string) => SHORT.test(s) && (s.match(/[A-Z]/g)?.length ?? 0) >= 2;

/** The pieces whose initials may spell the abbreviation: hyphens split ("sign-on" gives s, o). */
function pieces(words: string[]): string[] {
  return words
    .map((w) => w.replace(/['’]s$/i, ""))
    .flatMap((w) => w.split(/[-‐–]/))
    .filter(Boolean);
}

/**
 * Whether `words` (all of them, from the first) spell `short`: each piece gives its first letter (a number
 * gives itself), a minor word may give nothing, and every character of the abbreviation is used once.
 */
export function spells(short: string, words: string[]): boolean {
  const target = short.toLowerCase();
  const ws = pieces(words).map((w) => w.toLowerCase());
  const go = (i: number, j: number): boolean => {
    if (i === ws.length) return j === target.length;
    const w = ws[i]!;
    const head = /^\d+$/.test(w) ? w : w[0]!;
    if (target.startsWith(head, j) && go(i + 1, j + head.length)) return true;
    return MINOR.has(w) && go(i + 1, j);
  };
  // An expansion starts on a word of its own ("of Management and Budget" is not OMB's).
  return ws.length >= 2 && ws.length <= 10 && !MINOR.has(ws[0]!) && go(0, 0);
}

const WORD = /[\p{L}\p{N}][\p{L}\p{N}'’‐–-]*/gu;

/** The words before a parenthesis, nearest last (at most `n`). */
function wordsBefore(text: string, end: number, n: number): string[] {
  const before = text.slice(Math.max(0, end - 160), end);
  // A sentence or clause boundary ends the run: the expansion never reaches across it.
  const clause = before.split(/[.;:!?()[\]\n]/).pop() ?? "";
  return (clause.match(WORD) ?? []).slice(-n);
}

/** The pairs one text defines, each once. */
export function learnAbbreviations(text: string): Abbreviation[] {
  const found = new Map<string, Abbreviation>();
  const add = (short: string, words: string[]) => {
    // Two letters ("SO", "US") or a form the text also uses as a plain word would expand everyday words.
    if (short.length < 3 || new RegExp(`\\b${short.toLowerCase()}\\b`).test(text)) return;
    const long = fold(pieces(words).join(" "));
    found.set(`${fold(short)}\n${long}`, { short: fold(short), long });
  };
  for (const m of text.matchAll(/\(([^()\n]{2,80})\)/g)) {
    const inside = m[1]!.trim().replace(/^[“"']|[”"']$/g, "");
    const start = m.index!;
    if (isShort(inside)) {
      // "Long Form (LF)": the shortest run of preceding words that spells it.
      const before = wordsBefore(text, start, inside.length * 2 + 2);
      for (let k = 2; k <= before.length; k++) {
        const words = before.slice(-k);
        if (spells(inside, words)) {
          add(inside, words);
          break;
        }
      }
      continue;
    }
    // "LF (Long Form)": the word right before the parenthesis is the abbreviation.
    const prev = wordsBefore(text, start, 1)[0];
    const words = inside.match(WORD) ?? [];
    if (prev && isShort(prev) && spells(prev, words)) add(prev, words);
  }
  return [...found.values()];
}

/** The other forms of what a query says: expansions of its abbreviations, abbreviations of its phrases. */
export function expansionsFor(query: string, known: readonly Abbreviation[]): string[] {
  const folded = ` ${fold(query)} `;
  const out = new Set<string>();
  for (const a of known) {
    if (folded.includes(` ${a.short} `) && !folded.includes(` ${a.long} `)) out.add(a.long);
    else if (folded.includes(` ${a.long} `) && !folded.includes(` ${a.short} `)) out.add(a.short);
  }
  return [...out];
}

/** Lower case, accents and punctuation gone, single spaces: how both sides are compared. */
export function fold(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}
