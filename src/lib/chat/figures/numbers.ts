import "server-only";
import type { Lang } from "@/shared/languages";

// Numbers as people write them in the five languages: "1,234.50" (en, ja), "1.234,50" (es, de), "1 234,50"
// (fr, with a narrow no-break space). The decimal mark of the visitor's language comes from Intl, not from a
// table of ours. A single separator followed by exactly three digits ("1.500") is the one real ambiguity: in
// the answer it is read the answer's language's way; in a source (whose language may differ from the
// visitor's) both readings are kept, so a source never fails a figure for being written the other way.

/** A number as written: digits with group separators (",", ".", spaces, apostrophe) and a decimal part. */
export const NUMBER = String.raw`\d{1,3}(?:(?:[.,'\u00a0\u202f]|\x20(?=\d{3}(?!\d)))\d{3})+(?:[.,]\d+)?|\d+(?:[.,]\d+)?`;

const decimalMarks = new Map<Lang, string>();

/** The decimal mark of a language, as Intl formats it ("." for en and ja, "," for es, fr and de). */
export function decimalMark(lang: Lang): string {
  let mark = decimalMarks.get(lang);
  if (!mark) {
    mark = new Intl.NumberFormat(lang).formatToParts(1.5).find((p) => p.type === "decimal")?.value ?? ".";
    decimalMarks.set(lang, mark);
  }
  return mark;
}

/** One canonical spelling of a value, to two decimals: 5 and 5.00 are "5", 1234.5 is "1234.5". */
export function canon(value: number): string {
  return String(Math.round(value * 100) / 100);
}

/**
 * The values a written number can mean. `lang` set: the answer's reading in that language (one value);
 * undefined: every reading (a source).
 */
export function readNumber(written: string, lang?: Lang): number[] {
  const s = written.replace(/[\s'\u00a0\u202f]/g, "");
  const dots = s.split(".").length - 1;
  const commas = s.split(",").length - 1;
  if (dots === 0 && commas === 0) return [Number(s)];
  if (dots > 0 && commas > 0) {
    // Both marks: the last one is the decimal mark.
    const dec = s.lastIndexOf(".") > s.lastIndexOf(",") ? "." : ",";
    return [asDecimal(s, dec)];
  }
  const sep = dots > 0 ? "." : ",";
  if (dots + commas > 1) return [Number(s.split(sep).join(""))];
  const after = s.length - s.indexOf(sep) - 1;
  if (after !== 3) return [asDecimal(s, sep)];
  const grouped = Number(s.replace(sep, ""));
  const decimal = asDecimal(s, sep);
  if (!lang) return [grouped, decimal];
  return [decimalMark(lang) === sep ? decimal : grouped];
}

function asDecimal(s: string, dec: string): number {
  const other = dec === "." ? "," : ".";
  return Number(s.split(other).join("").replace(dec, "."));
}
