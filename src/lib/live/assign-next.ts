import "server-only";
import type { TenantTx } from "../db/client";
import type { RecordAudit } from "../db/queries/audit";
import { setLiveState } from "../db/queries/live-conversations";
import { appendLiveEvent } from "../db/queries/live-events";
import { onlineAgents, readLiveSettings } from "../db/queries/live-presence";
import {
  anyoneInLine,
  lockAssignments,
  lockOldestInLine,
  markAssignedUnlessBusy,
} from "../db/queries/live-queue";
import { PRESENCE_TTL_MS, pickAgent } from "./availability";
import { wakeLive } from "./bus";

// Visitors who asked for a person while every agent was at their limit wait unassigned, in line; so does one
// the round-robin gave to an agent who has left since (console closed, away), though a teammate a person chose
// keeps theirs. Round-robin at the moment of asking alone would leave them there for ever, so every change
// that can make room (a visitor asking, a hand back, a close, a transfer or a takeover, an agent online or
// back from away, a higher limit) calls assignWaiting inside its own transaction: the oldest in line go, one
// by one, to the online agent next in the round-robin with room, each audited and in the live log. The
// tenant's live-log lock makes it one decision at a time, so two events at once never count the same free
// slot twice; while holding it nothing here waits for a row (skip locked), since others wait for it while
// holding rows.

/**
 * Gives the oldest conversations in line to online agents with room. Returns the ids assigned, to
 * be woken (wakeAssigned) once the caller's transaction has committed.
 */
export async function assignWaiting(
  tx: TenantTx,
  tenantId: string,
  record: RecordAudit,
  now: Date = new Date(),
): Promise<string[]> {
  // Most calls (every heartbeat of every console) find nobody waiting; they should not queue on the lock.
  // Whoever makes a visitor wait unassigned calls this too, under the lock, so the look cannot miss one.
  const since = new Date(now.getTime() - PRESENCE_TTL_MS);
  if (!(await anyoneInLine(tx, tenantId, since))) return [];
  await lockAssignments(tx, tenantId);
  const settings = await readLiveSettings(tx, tenantId);
  const agents = await onlineAgents(tx, tenantId, since);
  const room = agents.reduce((n, a) => n + Math.max(0, settings.maxPerAgent - a.load), 0);
  if (room === 0) return [];
  const waiting = await lockOldestInLine(tx, tenantId, room, since);
  const assigned: string[] = [];
  for (const { id: conversationId, from } of waiting) {
    const agent = pickAgent(agents, settings.maxPerAgent);
    if (!agent) break;
    await setLiveState(tx, conversationId, { state: "waiting", agentId: agent.id, auto: true });
    await markAssignedUnlessBusy(tx, tenantId, agent.id);
    // As in the table: to the back of the line, one more conversation held.
    agent.load += 1;
    agent.lastAssignedAt = new Date(
      Math.max(now.getTime(), ...agents.map((a) => a.lastAssignedAt?.getTime() ?? 0)) + 1,
    );
    await record("live.assigned", {
      target: conversationId,
      details: { to: agent.id, from, by: "round-robin" },
    });
    await appendLiveEvent(tx, {
      conversationId,
      kind: "assigned",
      data: { agent: { id: agent.id, name: agent.name } },
    });
    assigned.push(conversationId);
  }
  return assigned;
}

/** After the commit: the console and the visitors' streams of the conversations just assigned read again. */
export function wakeAssigned(tenantId: string, conversationIds: readonly string[]): void {
  for (const id of conversationIds) wakeLive(tenantId, id);
}
