import "server-only";
import { findPhoneNumbersInText } from "libphonenumber-js/min";
import type { Lang } from "@/shared/languages";
import { canon, NUMBER, readNumber } from "./numbers";
import { type Figure, Masked, type Reading } from "./types";
import { findDates, findTimes } from "./when";

// Finds the figures a visitor acts on in a text: amounts of money, times, dates, phone numbers, e-mail
// addresses, percentages and quantities. Each kind is looked for in turn on what the earlier ones left, most
// specific first (an e-mail before the digits in it, a phone before its groups of digits, a date before a
// time), so one writing is one figure. Addresses in links and citation markers ([1]) are never figures.

const PHONE_COUNTRY: Record<Lang, Reading["phoneCountry"]> = {
  en: "US",
  es: "ES",
  fr: "FR",
  de: "DE",
  ja: "JP",
};

export function readingFor(lang: Lang | undefined): Reading {
  return { lang, phoneCountry: PHONE_COUNTRY[lang ?? "en"] };
}

const CURRENCY: [RegExp, string][] = [
  [/^(€|eur|euros?)$/i, "EUR"],
  [/^(£|gbp|pounds?|libras?)$/i, "GBP"],
  [/^(¥|円|jpy|yen)$/i, "JPY"],
  [/^(chf|franken|fr\.?)$/i, "CHF"],
];
const currencyOf = (written: string) => CURRENCY.find(([re]) => re.test(written.trim()))?.[1] ?? "$";

const PRE = String.raw`(us\$|ca\$|a\$|mx\$|r\$|€|\$|£|¥|(?<![a-z])(?:chf|eur|usd|gbp|jpy|cad|aud|mxn)(?![a-z]))`;
const POST = String.raw`(€|\$|£|¥|円|(?:eur|usd|gbp|jpy|chf|cad|aud|mxn|euros?|dollars?|d[oó]lares|pounds?|libras?|yen|franken|pesos?)(?![a-zà-ÿ]))`;
const DASH = String.raw`\s?[-–—~〜～]\s?`;
const UNITS = [
  "people|persons?|guests?|adults?|children|kids|personas?|adultos|niños|personnes?|adultes|enfants|personen|erwachsene|kinder|gäste",
  "seats?|places?|plazas?|plätze|tables?|mesas?|tische?|rooms?|habitaciones|chambres?|zimmer",
  "nights?|noches?|nuits?|nächte|days?|días?|jours?|tage?n?|weeks?|semanas?|semaines?|wochen?",
  "hours?|hrs|horas?|heures?|stunden?|minutes?|mins?|minutos?|minuten?",
  "items?|pieces?|pcs|piezas?|pièces?|stück|portions?|porciones|raciones|bottles?|botellas?|bouteilles?|flaschen?",
  "kg|g|mg|lbs?|oz|ml|cl|dl|l|cm|mm|m|km|mi|miles?|millas?|kilos?|gramos?|grammes?|gramm|litros?|litres?|liters?|liter",
].join("|");

const RANGE_END = /\d\s?[-–—~〜]\s?$/;
const RANGE_START = /^\s?[-–—~〜]\s?\d/;
const MAY_HOLD = /[\d０-９@＠]|noon|midday|midnight|midi|minuit|mediod|medianoche|mitternacht|mittags|正午/i;

/** The figures of `text`. `reading.lang` set: an answer; unset: a source (every reading of a number). */
export function findFigures(text: string, reading: Reading, opts: { bareNumbers?: boolean } = {}): Figure[] {
  // Most of a turn's text states no figure at all: no digit, no e-mail, no "noon".
  if (!MAY_HOLD.test(text)) return [];
  const m = new Masked(text.normalize("NFKC"));
  for (const x of m.original.matchAll(/https?:\/\/\S+|\]\([^)]*\)|\[\d{1,2}(?:\s*,\s*\d{1,2})*\]/g)) {
    m.blank(x.index ?? 0, (x.index ?? 0) + x[0].length);
  }
  each(m, /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g, (g) => ({ kind: "email", values: [g[0].toLowerCase()] }));
  findPhones(m, reading);
  findDates(m);
  findTimes(m, reading.lang === undefined);
  findLoosePhones(m);
  findMoney(m, reading);
  const amounts = (written: string) => readNumber(written, reading.lang).map(canon);
  const percent = String.raw`(?:(${NUMBER})${DASH})?(${NUMBER})\s?(?:%|por ciento|pour ?cent|prozent|per ?cent|パーセント)`;
  each(m, new RegExp(percent, "gi"), (g, at) => {
    if (g[1]) rangeFirst(m, at, g[1], { kind: "percent", values: amounts(g[1]) });
    return { kind: "percent", values: amounts(g[2]!), from: g[0].lastIndexOf(g[2]!) };
  });
  const unit = String.raw`(?<![\d.,])(?:(${NUMBER})${DASH})?(${NUMBER})\s?(?:(?:${UNITS})(?![a-zà-ÿ])|名|人|個|枚|本|分|時間|日間|泊|席|杯|品|食|回|歳|台|部屋|室)`;
  each(m, new RegExp(unit, "gi"), (g, at) => {
    if (g[1]) rangeFirst(m, at, g[1], { kind: "quantity", values: amounts(g[1]) });
    // "1 person", "1人", "1 night" say "per": a rate's unit, not a quantity to check.
    if (!g[1] && amounts(g[2]!)[0] === "1") return null;
    return { kind: "quantity", values: amounts(g[2]!), from: g[0].lastIndexOf(g[2]!) };
  });
  // A number with exactly two decimals and no currency is still a price ("Burger 12.50").
  each(m, /(?<![\d.,])\d{1,3}(?:[.,\s]\d{3})*[.,]\d{2}(?![\d.,]?\d)/g, (g) => ({
    kind: "money",
    values: amounts(g[0]),
  }));
  if (opts.bareNumbers) {
    each(m, new RegExp(String.raw`(?<![\d.,])(?:${NUMBER})`, "g"), (g, at) => {
      const end = at + g[0].length;
      // "9–17", "9-5": a bare range may be hours; a lone number ("Page 3") is not.
      const range =
        RANGE_END.test(m.text.slice(Math.max(0, at - 3), at)) || RANGE_START.test(m.text.slice(end, end + 3));
      return { kind: "number", values: amounts(g[0]), ...(range ? { range } : {}) };
    });
  }
  return m.figures.sort((a, b) => a.start - b.start);
}

/** A figure as a pattern read it; `from`: where in the match it starts (a range's second end). */
type Found = Omit<Figure, "text" | "start" | "end"> & { from?: number };

/** Every match of `re` on what is still free, taken as the figure `read` makes of it (null: not a figure). */
function each(m: Masked, re: RegExp, read: (g: RegExpExecArray, at: number) => Found | null): void {
  for (const g of [...m.text.matchAll(re)]) {
    const start = g.index ?? 0;
    if (m.text.slice(start, start + g[0].length) !== g[0]) continue; // claimed by a match before it
    const found = read(g as RegExpExecArray, start);
    if (!found) continue;
    const { from, ...figure } = found;
    m.take({ ...figure, start: start + (from ?? 0), end: start + g[0].length });
    m.blank(start, start + g[0].length);
  }
}

/** The first end of a range ("10" in "10–12 €"), a figure of the range's kind (the whole is taken after). */
function rangeFirst(m: Masked, at: number, written: string, found: Found): void {
  m.figures.push({ ...found, text: written, start: at, end: at + written.length });
}

function findMoney(m: Masked, reading: Reading): void {
  const amounts = (written: string) => readNumber(written, reading.lang);
  const scaled = (written: string, man?: string) => amounts(written).map((v) => canon(man ? v * 10_000 : v));
  each(
    m,
    new RegExp(String.raw`${PRE}\s?(${NUMBER})(万)?(?:${DASH}(?:${PRE})?\s?(${NUMBER})(?![\d%]))?`, "gi"),
    (g, at) => {
      const currency = currencyOf(g[1]!);
      if (g[5]) {
        rangeFirst(m, at, g[0].slice(0, g[0].indexOf(g[2]!) + g[2]!.length), {
          kind: "money",
          values: scaled(g[2]!, g[3]),
          currency,
        });
        return { kind: "money", values: scaled(g[5]), currency };
      }
      return { kind: "money", values: scaled(g[2]!, g[3]), currency };
    },
  );
  each(
    m,
    new RegExp(String.raw`(?<![\d.,])(?:(${NUMBER})${DASH})?(${NUMBER})\s?(万)?\s?${POST}`, "gi"),
    (g, at) => {
      const currency = currencyOf(g[4]!);
      if (g[1]) rangeFirst(m, at, g[1], { kind: "money", values: scaled(g[1], g[3]), currency });
      return {
        kind: "money",
        values: scaled(g[2]!, g[3]),
        currency,
        from: g[1] ? g[0].lastIndexOf(g[2]!) : 0,
      };
    },
  );
}

const TIME_SPAN = /^\d{1,2}[.:]\d{2}(?:\s?[-–—]\s?\d{1,2}[.:]\d{2})?$/;

/** Digits of a phone as compared: no leading international or trunk zeros. */
export const phoneDigits = (written: string) => written.replace(/\D/g, "").replace(/^0+/, "");

function findPhones(m: Masked, reading: Reading): void {
  // libphonenumber-js knows which digit groups make a valid number in the visitor's country or, with a
  // leading +, in any.
  for (const p of findPhoneNumbersInText(m.text, { defaultCountry: reading.phoneCountry })) {
    // German numbers are so free that "10.00–14.00" and "1.234,50" parse: hours and prices are not phones.
    const written = m.text.slice(p.startsAt, p.endsAt);
    if (written.includes(",") || TIME_SPAN.test(written) || phoneDigits(written).length < 7) continue;
    m.take({ kind: "phone", start: p.startsAt, end: p.endsAt, values: [phoneDigits(p.number.number)] });
  }
}

/** Phones libphonenumber-js did not take (another country's, written without +): after dates and times. */
function findLoosePhones(m: Masked): void {
  const loose =
    /(?<![\w.,:/-])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{1,5}\)[\s.-]?)?\d{2,5}(?:[\s.-]\d{2,5}){1,4}(?![\w.,:/-]?\d)/g;
  each(m, loose, (g) => {
    const digits = phoneDigits(g[0]);
    if (digits.length < 7 || digits.length > 15 || !/[\s.()+-]/.test(g[0]) || TIME_SPAN.test(g[0]))
      return null;
    if (/^\d{1,2}[.-]\d{1,2}[.-]\d{2,4}$/.test(g[0]) || /^\d{4}-\d{1,2}-\d{1,2}$/.test(g[0])) return null;
    return { kind: "phone", values: [digits] };
  });
}
