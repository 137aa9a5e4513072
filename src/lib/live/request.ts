import "server-only";
import type { LiveAgent } from "@/shared/live-events";
import type { DbHandle } from "../db";
import { forTenantAudited } from "../db/queries/audit";
import { insertLiveConversation, lockLiveConversation } from "../db/queries/live-conversations";
import { liveMetrics } from "../db/queries/live-metrics";
import { onlineAgents, readLiveSettings } from "../db/queries/live-presence";
import { conversationGone } from "./agent";
import { PRESENCE_TTL_MS, withinHours } from "./availability";
import { scheduleEscalation } from "./escalation";
import { type MovingRow, moveConversation, wakeAssigned } from "./transition";

// A visitor asks for a person ("Talk to a person" in the panel's menu, or after the assistant offered one).
// When an agent is online and the business is open, the conversation waits for a person (and goes to the
// next agent in the round-robin); otherwise nothing changes and the panel shows the contact form, saying
// honestly that nobody is available right now. Asked before the visitor wrote anything, the conversation is
// created here, but only when someone can take it: an empty conversation nobody answers helps nobody.

export type LiveRequestOutcome =
  | {
      live: true;
      state: "waiting" | "person";
      conversationId: string;
      agent?: LiveAgent;
      /** Waiting: the business's median first answer over the last 30 days, in whole minutes (null: too few). */
      expectedWaitMin?: number | null;
      /** Waiting: after this many seconds the panel offers the contact form instead (the alert delay). */
      offerContactAfterSec?: number;
    }
  | { live: false; reason: "nobody_online" | "closed" };

const DAY_MS = 24 * 60 * 60 * 1000;
/** Fewer answered requests than this in 30 days say nothing a visitor should plan on. */
const MIN_ANSWERED_FOR_ESTIMATE = 3;

/** The usual wait, rounded up to whole minutes, from the business's own recent live conversations. */
async function expectedWaitMin(tx: Parameters<typeof liveMetrics>[0], tenantId: string, now: Date) {
  const m = await liveMetrics(tx, tenantId, { since: new Date(now.getTime() - 30 * DAY_MS), until: now });
  if (m.answered < MIN_ANSWERED_FOR_ESTIMATE || m.firstResponseMedianSec === null) return null;
  return Math.max(1, Math.ceil(m.firstResponseMedianSec / 60));
}

/** Where a conversation started from the menu comes from (as a chat turn would store it). */
export type NewConversation = { origin: string; pageUrl: string; locale: string };

export async function requestPerson(
  db: DbHandle,
  input: { tenantId: string; visitorId: string } & (
    | { conversationId: string }
    | { conversationId?: undefined; start: NewConversation }
  ),
  now: Date = new Date(),
): Promise<LiveRequestOutcome> {
  let wake: string[] = [];
  const outcome = await forTenantAudited(db, input.tenantId, null, async (tx, record) => {
    let c: MovingRow | null = null;
    if (input.conversationId !== undefined) {
      const found = await lockLiveConversation(tx, input.conversationId);
      // Someone else's conversation looks exactly like a missing one.
      if (!found || found.visitorId !== input.visitorId) throw conversationGone();
      if (found.liveState === "person")
        return { live: true, state: "person", conversationId: found.id } as const;
      if (found.liveState === "waiting") {
        // Asked again while waiting (a second tab, a reload): the same answer as the first time.
        const s = await readLiveSettings(tx, input.tenantId);
        return {
          live: true,
          state: "waiting",
          conversationId: found.id,
          expectedWaitMin: await expectedWaitMin(tx, input.tenantId, now),
          offerContactAfterSec: s.escalateAfterMin * 60,
        } as const;
      }
      c = found;
    }
    const settings = await readLiveSettings(tx, input.tenantId);
    if (!withinHours(settings.hours, now)) return { live: false, reason: "closed" } as const;
    const agents = await onlineAgents(tx, input.tenantId, new Date(now.getTime() - PRESENCE_TTL_MS));
    if (agents.length === 0) return { live: false, reason: "nobody_online" } as const;
    if (!c && input.conversationId === undefined) {
      const id = await insertLiveConversation(tx, {
        tenantId: input.tenantId,
        visitorId: input.visitorId,
        ...input.start,
      });
      c = { id, liveState: "bot", liveAgentId: null };
    }
    if (!c) throw conversationGone();
    // In line unassigned; the round-robin then serves the queue oldest first, this visitor included.
    wake = await moveConversation({ tx, tenantId: input.tenantId, record, now }, c, "request");
    await scheduleEscalation(tx, {
      tenantId: input.tenantId,
      conversationId: c.id,
      requestedAt: now.toISOString(),
      afterMin: settings.escalateAfterMin,
    });
    return {
      live: true,
      state: "waiting",
      conversationId: c.id,
      expectedWaitMin: await expectedWaitMin(tx, input.tenantId, now),
      offerContactAfterSec: settings.escalateAfterMin * 60,
    } as const;
  });
  wakeAssigned(input.tenantId, wake);
  return outcome;
}
