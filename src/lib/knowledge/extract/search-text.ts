import "server-only";

// Postgres full-text search finds words between spaces and punctuation; Japanese, Chinese, Thai, Lao, Khmer
// and Burmese write no spaces between words, so a whole sentence would become one "word" no query matches.
// searchText puts a space between the words of such runs (Intl.Segmenter's dictionary word breaks) and
// leaves all other text as it is. Index text and queries both go through it, so they split alike.

const NO_SPACE_RUN =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}ー々〆ヵヶ]+/gu;
const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
const SCRIPT_LOCALE: [RegExp, string][] = [
  [/\p{Script=Thai}/u, "th"],
  [/\p{Script=Lao}/u, "lo"],
  [/\p{Script=Khmer}/u, "km"],
  [/\p{Script=Myanmar}/u, "my"],
];

const segmenters = new Map<string, Intl.Segmenter>();

function segmenter(locale: string): Intl.Segmenter {
  let s = segmenters.get(locale);
  if (!s) {
    s = new Intl.Segmenter(locale, { granularity: "word" });
    segmenters.set(locale, s);
  }
  return s;
}

function localeFor(run: string, lang: string | null | undefined): string {
  const primary = lang?.toLowerCase().split("-")[0] ?? "";
  for (const [re, locale] of SCRIPT_LOCALE) if (re.test(run)) return locale;
  if (primary === "ja" || primary === "zh") return primary;
  // Han without a language: kana nearby means Japanese, else Chinese.
  return KANA.test(run) ? "ja" : "zh";
}

/** Text with spaces between the words of scripts written without them; other text unchanged. */
export function searchText(text: string, lang?: string | null): string {
  return text.replace(NO_SPACE_RUN, (run, offset: number, whole: string) => {
    const words: string[] = [];
    for (const part of segmenter(localeFor(run, lang)).segment(run)) {
      if (part.isWordLike) words.push(part.segment);
    }
    const before = offset > 0 && !/\s/.test(whole[offset - 1] ?? "") ? " " : "";
    const after =
      offset + run.length < whole.length && !/\s/.test(whole[offset + run.length] ?? "") ? " " : "";
    return before + words.join(" ") + after;
  });
}
