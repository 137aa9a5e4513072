import "server-only";
import { primarySubtag } from "../../../shared/languages";

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
  const primary = primarySubtag(lang);
  for (const [re, locale] of SCRIPT_LOCALE) if (re.test(run)) return locale;
  if (primary === "ja" || primary === "zh") return primary;
  // Han without a language: kana nearby means Japanese, else Chinese.
  return KANA.test(run) ? "ja" : "zh";
}

// In a question, Japanese function words written in hiragana alone (particles を は が の, the pieces of
// です, ます, ください that the segmenter cuts apart) are not what it asks about; counted as question words
// they sank the relevance bar (営業時間を教えてください matched 2 of 7 words and was turned away). Short
// hiragana words and a few longer function words are left out of a question; page text keeps them all, and a
// question made only of such words keeps them too.
const HIRAGANA_ONLY = /^\p{Script=Hiragana}+$/u;
// The longer ones as ICU's segmenter actually cuts them (駐車場はありますか → 駐車 場 は ありま すか).
const LONGER_FUNCTION_WORDS = new Set(
  "ください ありま あります について でしょう ましょう ですか ますか ですが ません でした ました".split(" "),
);
const functionWord = (w: string) => HIRAGANA_ONLY.test(w) && (w.length <= 2 || LONGER_FUNCTION_WORDS.has(w));

function spaced(text: string, lang: string | null | undefined, question: boolean): string {
  return text.replace(NO_SPACE_RUN, (run, offset: number, whole: string) => {
    const locale = localeFor(run, lang);
    let words: string[] = [];
    for (const part of segmenter(locale).segment(run)) {
      if (part.isWordLike) words.push(part.segment);
    }
    if (question && locale === "ja") {
      const content = words.filter((w) => !functionWord(w));
      if (content.length > 0) words = content;
    }
    const before = offset > 0 && !/\s/.test(whole[offset - 1] ?? "") ? " " : "";
    const after =
      offset + run.length < whole.length && !/\s/.test(whole[offset + run.length] ?? "") ? " " : "";
    return before + words.join(" ") + after;
  });
}

/** Text with spaces between the words of scripts written without them; other text unchanged. */
export function searchText(text: string, lang?: string | null): string {
  return spaced(text, lang, false);
}

/** A visitor's question split as page text is, without Japanese function words (see above). */
export function questionText(text: string, lang?: string | null): string {
  return spaced(text, lang, true);
}
