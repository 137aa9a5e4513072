import "server-only";
import type { LiveAgent } from "@/shared/live-events";
import type { DbHandle } from "../db";
import { forTenantAudited } from "../db/queries/audit";
import { insertLiveConversation, lockLiveConversation } from "../db/queries/live-conversations";
import { onlineAgents, readLiveSettings } from "../db/queries/live-presence";
import { conversationGone } from "./agent";
import { PRESENCE_TTL_MS, withinHours } from "./availability";
import { scheduleEscalation } from "./escalation";
import { isPersonState, type MovingRow, moveConversation, wakeAssigned } from "./transition";

// A visitor asks for a person ("Talk to a person" in the panel's menu, or after the assistant offered one).
// When an agent is online and the business is open, the conversation waits for a person (and goes to the
// next agent in the round-robin); otherwise nothing changes and the panel shows the contact form, saying
// honestly that nobody is available right now. Asked before the visitor wrote anything, the conversation is
// created here, but only when someone can take it: an empty conversation nobody answers helps nobody.

export type LiveRequestOutcome =
  | { live: true; state: "waiting" | "person"; conversationId: string; agent?: LiveAgent }
  | { live: false; reason: "nobody_online" | "closed" };

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
      if (isPersonState(found.liveState)) {
        return { live: true, state: found.liveState, conversationId: found.id } as const;
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
    return { live: true, state: "waiting", conversationId: c.id } as const;
  });
  wakeAssigned(input.tenantId, wake);
  return outcome;
}
