// One date format for every admin page: "3 May 2025" and "3 May 2025, 10:04 UTC". Day-month-year with the
// month's name reads the same way for every locale we serve (no 03/05 vs 05/03 confusion), and it is
// formatted in UTC so the server's and the browser's render are identical (no hydration mismatch), like the
// audit log and the Usage days, which count in UTC.

const DAY = new Intl.DateTimeFormat("en-GB", {
  day: "numeric",
  month: "short",
  year: "numeric",
  timeZone: "UTC",
});

const TIME = new Intl.DateTimeFormat("en-GB", {
  hour: "2-digit",
  minute: "2-digit",
  hourCycle: "h23",
  timeZone: "UTC",
});

const TIME_S = new Intl.DateTimeFormat("en-GB", {
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hourCycle: "h23",
  timeZone: "UTC",
});

function asDate(v: Date | string): Date | null {
  const d = typeof v === "string" ? new Date(v) : v;
  return Number.isNaN(d.getTime()) ? null : d;
}

/** "3 May 2025". */
export function formatDate(v: Date | string): string {
  const d = asDate(v);
  return d ? DAY.format(d) : "";
}

/** "3 May 2025, 10:04 UTC" (with seconds: "10:04:05"). */
export function formatDateTime(v: Date | string, opts: { seconds?: boolean } = {}): string {
  const d = asDate(v);
  return d ? `${DAY.format(d)}, ${(opts.seconds ? TIME_S : TIME).format(d)} UTC` : "";
}
