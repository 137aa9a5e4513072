import "server-only";
import { LANGS } from "@/shared/languages";
import type { Masked } from "./types";

// Times of day and dates, as the five languages write them: "9 am", "09:00", "9h30", "18 h", "9 Uhr",
// "午後6時半"; "December 24", "24 de diciembre", "24. Dezember", "12月24日", "24/12/2026", "2026-12-24".
// A time is kept as minutes of the day, a date as "month-day"; an ambiguous writing keeps every meaning.

const AMPM = String.raw`(a\.\s?m\.|p\.\s?m\.|am|pm|a\sm|p\sm)(?![a-z])`;
// What joins the two ends of a range whose second end carries the unit: "9–17 h", "10 to 11 am", "9 bis 18 Uhr".
const RANGE_BEFORE =
  /(\d{1,2})(?:[:.h](\d{2}))?\s*(?:[-–—~〜～]|\bto\b|\ba\b|à|\bbis\b|\bhasta\b|\buntil\b|\band\b|\by\b|\bet\b|\bund\b)\s*$/i;

const minutes = (h: number, m: number) => String(((h % 24) * 60 + m) % 1440);

function meridiem(h: number, marker: string | undefined): number {
  if (!marker) return h;
  const pm = marker.toLowerCase().startsWith("p");
  if (h === 12) return pm ? 12 : 0;
  return pm ? h + 12 : h;
}

type Unit = "ampm" | "h24";

/** The range's first end, before a time whose unit it shares: "9" in "9–17 h" (then 9:00). */
function rangeStart(m: Masked, at: number, hour: number, unit: Unit, marker?: string) {
  const before = m.text.slice(Math.max(0, at - 24), at);
  const r = RANGE_BEFORE.exec(before);
  if (!r) return;
  const h = Number(r[1]);
  const min = Number(r[2] ?? 0);
  if (h > 24 || min > 59) return;
  const start = at - before.length + r.index;
  const end = start + (r[1]!.length + (r[2] ? r[2].length + 1 : 0));
  let value: number;
  if (unit === "ampm" && marker) {
    // "10–11 am" shares the marker; "9–5 pm" starts in the morning.
    const first = h % 12;
    const same = first < hour % 12 || hour % 12 === 0;
    value = same ? meridiem(h, marker) : meridiem(h, marker.toLowerCase().startsWith("p") ? "am" : "pm");
  } else value = h;
  m.take({ kind: "time", start, end, values: [minutes(value, min)] });
}

function timeMatches(m: Masked, re: RegExp, read: (g: RegExpExecArray) => Found | null) {
  for (const g of [...m.text.matchAll(re)]) {
    const found = read(g as RegExpExecArray);
    if (!found) continue;
    const start = g.index ?? 0;
    const end = start + g[0].length;
    if (m.text.slice(start, end) !== g[0]) continue; // claimed by an earlier figure of this pass
    m.take({ kind: "time", start, end, values: found.values });
    if (found.unit) rangeStart(m, start, found.hour, found.unit, found.marker);
  }
}

type Found = { values: string[]; hour: number; unit?: Unit; marker?: string };

/** Times of day. `lenient` (sources): "5:30" without am/pm may also mean 17:30, as US sites write hours. */
export function findTimes(m: Masked, lenient: boolean): void {
  timeMatches(m, /(午前|午後)?\s?(\d{1,2})時(?!間)(?:\s?(\d{1,2})分|(半))?/g, (g) => {
    const h = Number(g[2]);
    const min = g[4] ? 30 : Number(g[3] ?? 0);
    if (h > 24 || min > 59) return null;
    const hour = g[1] === "午後" && h < 12 ? h + 12 : h;
    return { values: [minutes(hour, min)], hour, unit: g[1] ? undefined : "h24" };
  });
  const clock = new RegExp(
    String.raw`(?<![\d.,])(\d{1,2}):(\d{2})(?!\d)(?:\s?${AMPM}|\s?(?:h|uhr|hrs?)(?![a-z]))?`,
    "gi",
  );
  timeMatches(m, clock, (g) => {
    const h = Number(g[1]);
    const min = Number(g[2]);
    if (h > 24 || min > 59) return null;
    const hour = meridiem(h, g[3]);
    const values = [minutes(hour, min)];
    // "5:30" with no marker and no leading zero may be afternoon on a source written the US way.
    if (lenient && !g[3] && h >= 1 && h < 12 && g[1]!.length === 1) values.push(minutes(h + 12, min));
    return { values, hour, unit: g[3] ? "ampm" : undefined, marker: g[3] };
  });
  const ampm = new RegExp(String.raw`(?<![\d.,:])(\d{1,2})(?:\.(\d{2}))?\s?${AMPM}`, "gi");
  timeMatches(m, ampm, (g) => {
    const h = Number(g[1]);
    const min = Number(g[2] ?? 0);
    if (h > 12 || min > 59) return null;
    const hour = meridiem(h, g[3]);
    return { values: [minutes(hour, min)], hour, unit: "ampm", marker: g[3] };
  });
  const h24 = /(?<![\d.,:])(\d{1,2})(?:(?:\.(\d{2}))?\s?uhr|\s?h(?:\s?(\d{2}))?)(?![a-zà-ÿ\d])/gi;
  timeMatches(m, h24, (g) => {
    const h = Number(g[1]);
    const min = Number(g[2] ?? g[3] ?? 0);
    if (h > 24 || min > 59) return null;
    return { values: [minutes(h, min)], hour: h, unit: "h24" };
  });
  const words = /\b(noon|midday|midnight|midi|minuit|mediod[ií]a|medianoche|mitternacht|mittags)\b|正午/gi;
  timeMatches(m, words, (g) => {
    const w = g[0].toLowerCase();
    const night = /night|minuit|noche|nacht/.test(w);
    return { values: [night ? "0" : "720"], hour: night ? 0 : 12 };
  });
}

type MonthName = { name: string; month: number };

let monthNames: { names: MonthName[]; pattern: string } | undefined;

/** Month names of the five languages, long and short, from Intl; longest first so "mars" beats "mar". */
function months() {
  if (monthNames) return monthNames;
  const names = new Map<string, number>();
  for (const lang of LANGS) {
    if (lang === "ja") continue; // 12月 is written with digits and read by its own pattern
    for (const style of ["long", "short"] as const) {
      const f = new Intl.DateTimeFormat(lang, { month: style, timeZone: "UTC" });
      for (let i = 0; i < 12; i++) {
        const name = f
          .format(new Date(Date.UTC(2026, i, 1)))
          .toLowerCase()
          .replace(/\.$/, "");
        names.set(name, i + 1);
      }
    }
  }
  names.set("sept", 9);
  const list = [...names]
    .map(([name, month]) => ({ name, month }))
    .sort((a, b) => b.name.length - a.name.length);
  monthNames = { names: list, pattern: list.map((n) => n.name).join("|") };
  return monthNames;
}

const monthOf = (name: string) =>
  months().names.find((n) => n.name === name.toLowerCase().replace(/\.$/, ""))?.month;

const md = (month: number, day: number) =>
  month >= 1 && month <= 12 && day >= 1 && day <= 31 ? `${month}-${day}` : null;

function dateMatches(m: Masked, re: RegExp, read: (g: RegExpExecArray) => (string | null)[]) {
  for (const g of [...m.text.matchAll(re)]) {
    const values = [...new Set(read(g as RegExpExecArray).filter((v): v is string => v !== null))];
    if (values.length === 0) continue;
    const start = g.index ?? 0;
    if (m.text.slice(start, start + g[0].length) !== g[0]) continue;
    m.take({ kind: "date", start, end: start + g[0].length, values });
  }
}

/** Dates with a day and a month (a year alone, or a weekday, is not a figure here). */
export function findDates(m: Masked): void {
  const { pattern } = months();
  dateMatches(m, /(?:(\d{4})年\s?)?(\d{1,2})月\s?(\d{1,2})日/g, (g) => [md(Number(g[2]), Number(g[3]))]);
  dateMatches(m, /\b(\d{4})-(\d{1,2})-(\d{1,2})\b/g, (g) => [md(Number(g[2]), Number(g[3]))]);
  const dayFirst = new RegExp(
    String.raw`\b(?:(\d{1,2})(?:st|nd|rd|th|er)?\s?(?:et|and|y|und|&|[-–]|au|bis|to|al?)\s?)?(\d{1,2})(?:st|nd|rd|th|er|º|\.)?\s?(?:de\s|of\s)?(${pattern})(?![a-zà-ÿ])(?:,?\s(?:de\s)?(\d{4}))?`,
    "gi",
  );
  // "25 et 26 décembre", "24 and 25 December": the first day shares the month.
  dateMatches(m, dayFirst, (g) => {
    const month = monthOf(g[3]!) ?? 0;
    return [md(month, Number(g[2])), g[1] ? md(month, Number(g[1])) : null];
  });
  const monthFirst = new RegExp(
    String.raw`(?<![a-zà-ÿ])(${pattern})\.?\s(\d{1,2})(?:st|nd|rd|th)?(?![\d:.,]\d)(?:,?\s(\d{4}))?`,
    "gi",
  );
  dateMatches(m, monthFirst, (g) => [md(monthOf(g[1]!) ?? 0, Number(g[2]))]);
  // 24/12/2026, 12/24/2026, 24.12.2026: day or month first depends on the writer, so both readings stay.
  dateMatches(m, /(?<![\d.])(\d{1,2})[./](\d{1,2})[./](\d{4}|\d{2})(?![\d]|\.\d)/g, (g) => {
    const a = Number(g[1]);
    const b = Number(g[2]);
    return [md(b, a), md(a, b)];
  });
  dateMatches(m, /(?<![\d/.,])(\d{1,2})\/(\d{1,2})(?![\d/])/g, (g) => {
    if (g[0] === "24/7") return [];
    const a = Number(g[1]);
    const b = Number(g[2]);
    return [md(b, a), md(a, b)];
  });
}
