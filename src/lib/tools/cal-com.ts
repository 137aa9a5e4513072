import "server-only";
import { env } from "../env";
import { isAllowlisted } from "../security/url-policy";
import { ToolWorldError } from "./registry";

// Cal.com's public API v2 as the book_appointment packs (packs/book-appointment.ts) speak it: where to send,
// which versions, how its refusals read, and the slots answer cut down to a short list for the model.
//   Slots:    https://cal.com/docs/api-reference/v2/slots/get-available-time-slots-for-an-event-type
//   Bookings: https://cal.com/docs/api-reference/v2/bookings/create-a-booking

const CAL_API = "https://api.cal.com";
// Each endpoint names the version of its request and answer shapes it speaks (the pages above).
export const SLOTS_VERSION = "2024-09-04";
export const BOOKINGS_VERSION = "2024-08-13";
const MAX_TIMES = 16;
export const MAX_DAYS = 7;

type CalConfig = { apiKey: string; eventTypeId: number; timeZone: string; apiBaseUrl?: string };

/** https://api.cal.com, or a test server only when the operator allowlisted it (MICHI_FETCH_ALLOW_HOSTS). */
export function baseOf(config: CalConfig): string {
  const raw = config.apiBaseUrl?.trim();
  if (!raw) return CAL_API;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ToolWorldError("The Cal.com API address in the settings is not valid");
  }
  if (url.origin === CAL_API) return CAL_API;
  if (!isAllowlisted(url.hostname, url.port, env().MICHI_FETCH_ALLOW_HOSTS))
    throw new ToolWorldError("The Cal.com API address in the settings is not allowed");
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

/** Cal.com's refusals in words the model can pass on; anything else as the guarded fetch worded it. */
export function worded(err: unknown, booking: boolean): unknown {
  const status = err instanceof ToolWorldError ? err.status : undefined;
  if (status === 401 || status === 403)
    return new ToolWorldError("The Cal.com key was refused: the business must check its Cal.com settings.");
  // Cal.com answers a start nobody is free for with 400 ("no_available_users_found_error"); 409 is a clash.
  if (booking && (status === 400 || status === 409))
    return new ToolWorldError("That time is no longer free: offer the visitor another time.");
  return err;
}

export const DAY = /^\d{4}-\d{2}-\d{2}$/;
export const addDays = (date: string, n: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

/** A slot's start as the business's local day and HH:MM (Cal.com sends ISO 8601 with an offset). */
function localOf(start: string, timeZone: string): { date: string; time: string } | null {
  const at = Date.parse(start);
  if (!Number.isFinite(at)) return null;
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-CA", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  return { date: `${parts.year}-${parts.month}-${parts.day}`, time: `${parts.hour}:${parts.minute}` };
}

/** The answer's `data` map (day → slots), as a short list of local times per day, at most MAX_TIMES in all. */
export function projectSlots(answer: unknown, timeZone: string) {
  const data = (answer as { data?: unknown } | null)?.data;
  const starts: string[] = [];
  if (data && typeof data === "object" && !Array.isArray(data)) {
    for (const slots of Object.values(data)) {
      if (!Array.isArray(slots)) continue;
      for (const s of slots) {
        const start = typeof s === "string" ? s : (s as { start?: unknown })?.start;
        if (typeof start === "string") starts.push(start);
      }
    }
  }
  const days = new Map<string, string[]>();
  for (const start of starts.slice(0, MAX_TIMES)) {
    const local = localOf(start, timeZone);
    if (local) days.set(local.date, [...(days.get(local.date) ?? []), local.time]);
  }
  return {
    timeZone,
    days: [...days].map(([date, times]) => ({ date, times })),
    ...(starts.length > MAX_TIMES ? { more: true } : {}),
    ...(starts.length === 0 ? { note: "No free times on these days." } : {}),
  };
}
