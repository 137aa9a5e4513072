// One date format for every admin page: "3 May 2025" and "3 May 2025, 10:04 CEST", in the business's own time
// zone (Data & retention settings; UTC until set). Day-month-year with the month's name reads the same way for
// every locale we serve (no 03/05 vs 05/03 confusion), and the zone is named with every time. The zone comes
// from the tenant, never the viewer's browser, so the server's and the browser's render are identical (no
// hydration mismatch) and everyone on the team reads the same day.

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(kind: "day" | "time" | "seconds" | "key", timeZone: string): Intl.DateTimeFormat {
  const id = `${kind} ${timeZone}`;
  let f = formatters.get(id);
  if (!f) {
    const opts: Intl.DateTimeFormatOptions =
      kind === "day"
        ? { day: "numeric", month: "short", year: "numeric" }
        : kind === "key"
          ? { day: "2-digit", month: "2-digit", year: "numeric" }
          : {
              hour: "2-digit",
              minute: "2-digit",
              ...(kind === "seconds" ? { second: "2-digit" } : {}),
              hourCycle: "h23",
              timeZoneName: "short",
            };
    f = new Intl.DateTimeFormat(kind === "key" ? "en-CA" : "en-GB", { ...opts, timeZone });
    formatters.set(id, f);
  }
  return f;
}

/** True for a zone name the runtime knows ("Europe/Madrid", "UTC"). */
export function isTimeZone(value: unknown): value is string {
  if (typeof value !== "string" || value.length === 0 || value.length > 64) return false;
  try {
    new Intl.DateTimeFormat("en", { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

/** The zone to use: the given one when valid, else UTC. */
export const zoneOr = (tz: string | null | undefined): string => (isTimeZone(tz) ? tz : "UTC");

function asDate(v: Date | string): Date | null {
  const d = typeof v === "string" ? new Date(v) : v;
  return Number.isNaN(d.getTime()) ? null : d;
}

/** "3 May 2025", the day in `tz`. */
export function formatDate(v: Date | string, tz: string): string {
  const d = asDate(v);
  return d ? formatter("day", zoneOr(tz)).format(d) : "";
}

/** "3 May 2025, 10:04 CEST" (with seconds: "10:04:05 CEST"), in `tz`. */
export function formatDateTime(v: Date | string, opts: { seconds?: boolean; tz?: string } = {}): string {
  const d = asDate(v);
  if (!d) return "";
  const tz = zoneOr(opts.tz);
  return `${formatter("day", tz).format(d)}, ${formatter(opts.seconds ? "seconds" : "time", tz).format(d)}`;
}

/** The calendar day of `d` in `tz`, as "2025-05-03" (the key the Usage days are grouped by). */
export function dayIn(d: Date, tz: string): string {
  return formatter("key", zoneOr(tz)).format(d);
}

/** The instant a calendar day ("2025-05-03") starts in `tz`, DST changes included. */
export function startOfDayIn(day: string, tz: string): Date {
  const [y, m, d] = day.split("-").map(Number) as [number, number, number];
  const wall = Date.UTC(y, m - 1, d);
  // The zone's offset at a moment: that moment's wall clock there, read as if it were UTC, minus the moment.
  const offset = (t: number) => {
    const p = Object.fromEntries(
      new Intl.DateTimeFormat("en-US", {
        timeZone: zoneOr(tz),
        hourCycle: "h23",
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
        second: "2-digit",
      })
        .formatToParts(new Date(t))
        .map((x) => [x.type, x.value]),
    );
    return Date.UTC(+p.year!, +p.month! - 1, +p.day!, +p.hour!, +p.minute!, +p.second!) - t;
  };
  const first = wall - offset(wall);
  // Once more at the first guess: the offset may differ there when a DST change falls between.
  return new Date(wall - offset(first));
}

/**
 * When the month after `now`'s begins in UTC: monthly token budgets and the usage months count in UTC for every
 * business alike (src/lib/db/queries/usage.ts), so the reset is that instant, shown in the business's zone.
 */
export function nextBudgetMonth(now: Date = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

/** The calendar day `n` days after `day` ("2025-05-03" + 1 → "2025-05-04"). */
export function addDays(day: string, n: number): string {
  const [y, m, d] = day.split("-").map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + n)).toISOString().slice(0, 10);
}
