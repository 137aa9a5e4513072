import "server-only";
import type { LiveHours } from "../db/schema";

// Whether a person can be asked for now, and who gets the next waiting visitor. Pure, so the rules are tested
// without a database.

/** A console sends a heartbeat every PRESENCE_BEAT_MS; an agent without one for PRESENCE_TTL_MS is offline. */
export const PRESENCE_BEAT_MS = 15_000;
export const PRESENCE_TTL_MS = 45_000;

const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

/** Within the business's opening hours (always, when it set none), in its own time zone. */
export function withinHours(hours: LiveHours | null, now: Date): boolean {
  if (!hours) return true;
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat("en-US", {
      timeZone: hours.timeZone,
      weekday: "short",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    }).formatToParts(now);
  } catch {
    return true; // an unknown time zone must not hide every agent
  }
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? "";
  const day = hours.days[WEEKDAYS.indexOf(part("weekday"))];
  if (!day) return false;
  const time = `${part("hour")}:${part("minute")}`;
  return day.open <= time && time < day.close;
}

type Candidate = { id: string; load: number; lastAssignedAt: Date | null };

/**
 * Round-robin among the online agents under the per-agent limit: whoever was given a conversation longest
 * ago (or never) goes first; null when everyone is at the limit.
 */
export function pickAgent<T extends Candidate>(agents: readonly T[], maxPerAgent: number): T | null {
  const free = agents.filter((a) => a.load < maxPerAgent);
  free.sort(
    (a, b) =>
      (a.lastAssignedAt?.getTime() ?? 0) - (b.lastAssignedAt?.getTime() ?? 0) ||
      a.load - b.load ||
      a.id.localeCompare(b.id),
  );
  return free[0] ?? null;
}
