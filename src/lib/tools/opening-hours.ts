import "server-only";

// Opening hours typed into the pack's form, and the one question visitors ask of them: open now, and until
// or from when. Everything is computed in the business's own time zone, so a visitor abroad, a server in UTC
// and a daylight-saving change all give the answer a customer standing at the door would get.

/** Minutes since local midnight; `to` may pass 1440 for a range that ends after midnight. */
type Range = { from: number; to: number };
type DayRule = { ranges: Range[]; note?: string };

export type OpeningHours = {
  weekly: Map<number, Range[]>;
  /** By local date (YYYY-MM-DD): replaces the weekly rule for that day. */
  exceptions: Map<string, DayRule>;
};

const DAY_NAMES = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"] as const;
const DAY_INDEX = new Map(DAY_NAMES.map((d, i) => [d.toLowerCase(), i]));
const DAY_SPEC = "(sun|mon|tue|wed|thu|fri|sat)[a-z]*";
const WEEK_LINE = new RegExp(String.raw`^${DAY_SPEC}(?:\s*-\s*${DAY_SPEC})?\s+(.+)$`, "i");
const DATE = String.raw`(\d{4}-\d{2}-\d{2})`;
const EXCEPTION_LINE = new RegExp(
  String.raw`^${DATE}(?:\s*\.\.\s*${DATE})?\s+(closed|[\d:,\s-]+?)(?:\s+(.*))?$`,
  "i",
);
const RANGE = /^(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})$/;
const DAY_MS = 86_400_000;
/** How far ahead "opens at" looks: a business closed for longer says so instead. */
const LOOKAHEAD_DAYS = 21;

function parseRanges(spec: string): Range[] | string {
  if (/^closed$/i.test(spec.trim())) return [];
  const out: Range[] = [];
  for (const part of spec.split(",").map((s) => s.trim())) {
    const m = RANGE.exec(part);
    if (!m) return `"${part}" is not a time range such as 09:00-17:30`;
    const [h1, m1, h2, m2] = m.slice(1).map(Number) as [number, number, number, number];
    if (h1 > 23 || h2 > 24 || m1 > 59 || m2 > 59 || (h2 === 24 && m2 > 0))
      return `"${part}" has a time that does not exist`;
    const from = h1 * 60 + m1;
    let to = h2 * 60 + m2;
    if (to === from) return `"${part}" opens and closes at the same time`;
    if (to < from) to += 1440; // 22:00-02:00: closes after midnight
    out.push({ from, to });
  }
  return out;
}

/** The problem with one line of the weekly grid, or null. */
export function weeklyLineProblem(line: string): string | null {
  const m = WEEK_LINE.exec(line.trim());
  if (!m) return 'start with a day or days, then the hours: "Mon-Fri 09:00-18:00" or "Sun closed"';
  const r = parseRanges(m[3] ?? "");
  return typeof r === "string" ? r : null;
}

function validDate(iso: string): boolean {
  const t = Date.parse(`${iso}T00:00:00Z`);
  return Number.isFinite(t) && new Date(t).toISOString().slice(0, 10) === iso;
}

/** The problem with one line of the exceptions list, or null. */
export function exceptionLineProblem(line: string): string | null {
  const m = EXCEPTION_LINE.exec(line.trim());
  if (!m) return 'write a date, then "closed" or the hours: "2026-12-25 closed Christmas"';
  const [, first, last, spec] = m as unknown as [string, string, string | undefined, string];
  if (!validDate(first) || (last && !validDate(last))) return "that date does not exist";
  if (last && last < first) return "the range ends before it starts";
  if (last && Date.parse(last) - Date.parse(first) > 366 * DAY_MS) return "keep a range under a year";
  const r = parseRanges(spec);
  return typeof r === "string" ? r : null;
}

function daysBetween(first: number, last: number): number[] {
  const out: number[] = [];
  for (let d = first; ; d = (d + 1) % 7) {
    out.push(d);
    if (d === last) return out;
  }
}

/** Builds the rules from the form's lines; lines are checked on save, so a bad one here is skipped. */
export function parseOpeningHours(
  weeklyLines: readonly string[],
  exceptionLines: readonly string[],
): OpeningHours {
  const weekly = new Map<number, Range[]>();
  for (const line of weeklyLines) {
    const m = WEEK_LINE.exec(line.trim());
    const ranges = m ? parseRanges(m[3] ?? "") : "";
    if (!m || typeof ranges === "string") continue;
    const first = DAY_INDEX.get(m[1]!.slice(0, 3).toLowerCase())!;
    const last = m[2] ? DAY_INDEX.get(m[2].slice(0, 3).toLowerCase())! : first;
    for (const d of daysBetween(first, last)) weekly.set(d, ranges); // a later line overrides an earlier one
  }
  const exceptions = new Map<string, DayRule>();
  for (const line of exceptionLines) {
    const m = EXCEPTION_LINE.exec(line.trim());
    const ranges = m ? parseRanges(m[3]!) : "";
    if (!m || typeof ranges === "string" || exceptionLineProblem(line)) continue;
    const note = m[4]?.trim() || undefined;
    const start = Date.parse(`${m[1]}T00:00:00Z`);
    const end = m[2] ? Date.parse(`${m[2]}T00:00:00Z`) : start;
    for (let t = start; t <= end; t += DAY_MS)
      exceptions.set(new Date(t).toISOString().slice(0, 10), { ranges, note });
  }
  return { weekly, exceptions };
}

type Local = { date: string; weekday: number; minutes: number };

function localParts(instant: number, timeZone: string): Local & { offsetMs: number } {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  }).formatToParts(instant);
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value);
  const [y, mo, d, h, mi, s] = [
    get("year"),
    get("month"),
    get("day"),
    get("hour"),
    get("minute"),
    get("second"),
  ];
  const asUtc = Date.UTC(y, mo - 1, d, h, mi, s);
  const date = new Date(Date.UTC(y, mo - 1, d)).toISOString().slice(0, 10);
  return {
    date,
    weekday: new Date(asUtc).getUTCDay(),
    minutes: h * 60 + mi,
    offsetMs: asUtc - Math.floor(instant / 1000) * 1000,
  };
}

/**
 * The instant a local wall-clock time happens in a time zone. A time skipped by a daylight-saving change
 * (02:30 on the night clocks go forward) lands just after the gap, as a clock on the wall would show it.
 */
export function instantOf(date: string, minutes: number, timeZone: string): number {
  const wall = Date.parse(`${date}T00:00:00Z`) + minutes * 60_000;
  const first = wall - localParts(wall, timeZone).offsetMs;
  const second = wall - localParts(first, timeZone).offsetMs;
  const seen = localParts(second, timeZone);
  if (seen.date === date && seen.minutes === minutes % 1440) return second;
  // A wall time the clocks skip: of the two guesses, the later one reads just after the jump.
  return Math.max(first, second);
}

function rulesFor(hours: OpeningHours, date: string, weekday: number): DayRule {
  return hours.exceptions.get(date) ?? { ranges: hours.weekly.get(weekday) ?? [] };
}

function addDays(date: string, n: number): { date: string; weekday: number } {
  const t = Date.parse(`${date}T00:00:00Z`) + n * DAY_MS;
  return { date: new Date(t).toISOString().slice(0, 10), weekday: new Date(t).getUTCDay() };
}

/** Open intervals as instants, from yesterday (a night that runs past midnight) to the look-ahead, merged. */
function intervals(hours: OpeningHours, today: string, timeZone: string): [number, number][] {
  const out: [number, number][] = [];
  for (let n = -1; n <= LOOKAHEAD_DAYS; n++) {
    const day = addDays(today, n);
    for (const r of rulesFor(hours, day.date, day.weekday).ranges) {
      const endDay = addDays(day.date, Math.floor(r.to / 1440));
      out.push([instantOf(day.date, r.from, timeZone), instantOf(endDay.date, r.to % 1440, timeZone)]);
    }
  }
  out.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const iv of out) {
    const last = merged.at(-1);
    if (last && iv[0] <= last[1]) last[1] = Math.max(last[1], iv[1]);
    else merged.push([...iv]);
  }
  return merged;
}

/** "2026-12-07T09:00:00+09:00" in the business's zone: the model reads the local time and the day. */
export function localIso(instant: number, timeZone: string): string {
  const p = localParts(instant, timeZone);
  const off = Math.round(p.offsetMs / 60_000);
  const sign = off < 0 ? "-" : "+";
  const abs = Math.abs(off);
  const hhmm = `${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
  const time = `${String(Math.floor(p.minutes / 60)).padStart(2, "0")}:${String(p.minutes % 60).padStart(2, "0")}`;
  return `${p.date}T${time}:00${sign}${hhmm}`;
}

function describeDay(rule: DayRule): string {
  if (rule.ranges.length === 0) return "closed";
  const t = (m: number) =>
    `${String(Math.floor((m % 1440) / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`;
  return rule.ranges.map((r) => `${t(r.from)}-${t(r.to)}`).join(", ");
}

export type OpeningStatus = {
  open: boolean;
  /** The next opening or closing, in the business's zone; absent when nothing changes in the look-ahead. */
  nextChange?: string;
  /** Today's hours as the business wrote them, and an exception's note (a holiday's name). */
  today: string;
  note?: string;
  timeZone: string;
};

export function openingStatusAt(hours: OpeningHours, timeZone: string, now: number): OpeningStatus {
  const local = localParts(now, timeZone);
  const rule = rulesFor(hours, local.date, local.weekday);
  const list = intervals(hours, local.date, timeZone);
  const current = list.find(([a, b]) => a <= now && now < b);
  const next = current ? current[1] : list.find(([a]) => a > now)?.[0];
  return {
    open: Boolean(current),
    ...(next !== undefined ? { nextChange: localIso(next, timeZone) } : {}),
    today: describeDay(rule),
    ...(rule.note ? { note: rule.note } : {}),
    timeZone,
  };
}
