import "server-only";
import type { LiveAgent } from "@/shared/live-events";
import type { DbHandle } from "../db";
import { forTenantAudited } from "../db/queries/audit";
import { lockLiveConversation, setLiveState } from "../db/queries/live-conversations";
import { appendLiveEvent } from "../db/queries/live-events";
import { onlineAgents, readLiveSettings } from "../db/queries/live-presence";
import { conversationGone } from "./agent";
import { assignWaiting, wakeAssigned } from "./assign-next";
import { PRESENCE_TTL_MS, withinHours } from "./availability";
import { wakeLive } from "./bus";
import { scheduleEscalation } from "./escalation";

// A visitor asks for a person ("Talk to a person" in the panel's menu, or after the assistant offered one).
// When an agent is online and the business is open, the conversation waits for a person (and goes to the
// next agent in the round-robin); otherwise nothing changes and the panel shows the contact form, saying
// honestly that nobody is available right now.

export type LiveRequestOutcome =
  | { live: true; state: "waiting" | "person"; agent?: LiveAgent }
  | { live: false; reason: "nobody_online" | "closed" };

export async function requestPerson(
  db: DbHandle,
  input: { tenantId: string; visitorId: string; conversationId: string },
  now: Date = new Date(),
): Promise<LiveRequestOutcome> {
  let assigned: string[] = [];
  const outcome = await forTenantAudited(db, input.tenantId, null, async (tx, record) => {
    const c = await lockLiveConversation(tx, input.conversationId);
    // Someone else's conversation looks exactly like a missing one.
    if (!c || c.visitorId !== input.visitorId) throw conversationGone();
    if (c.liveState === "waiting" || c.liveState === "person") {
      return { live: true, state: c.liveState } as const;
    }
    const settings = await readLiveSettings(tx, input.tenantId);
    if (!withinHours(settings.hours, now)) return { live: false, reason: "closed" } as const;
    const agents = await onlineAgents(tx, input.tenantId, new Date(now.getTime() - PRESENCE_TTL_MS));
    if (agents.length === 0) return { live: false, reason: "nobody_online" } as const;
    // In line unassigned; the round-robin then serves the queue oldest first, this visitor included.
    await setLiveState(tx, c.id, {
      state: "waiting",
      agentId: null,
      requestedAt: now,
      endedAt: null,
      firstResponseAt: null,
    });
    await record("live.requested", { target: c.id, details: { by: "visitor" } });
    await appendLiveEvent(tx, { conversationId: c.id, kind: "state", data: { state: "waiting" } });
    assigned = await assignWaiting(tx, input.tenantId, record, now);
    await scheduleEscalation(tx, {
      tenantId: input.tenantId,
      conversationId: c.id,
      requestedAt: now.toISOString(),
      afterMin: settings.escalateAfterMin,
    });
    return { live: true, state: "waiting" } as const;
  });
  if (outcome.live) wakeLive(input.tenantId, input.conversationId);
  wakeAssigned(input.tenantId, assigned);
  return outcome;
}
