import "server-only";
import { and, eq, gt, inArray, sql } from "drizzle-orm";
import type { TenantTx } from "../client";
import {
  conversations,
  type LiveHours,
  livePresence,
  liveSettings,
  memberships,
  type SavedReply,
  users,
} from "../schema";
import { displayName } from "./live-conversations";

// Who can take a live conversation: presence heartbeats of the console (drizzle/0028), the agents' load, and
// the business's live settings. Tenant path only; every statement names the tenant too.

export type LiveSettingsRow = {
  maxPerAgent: number;
  escalateAfterMin: number;
  hours: LiveHours | null;
  savedReplies: SavedReply[];
};

export const LIVE_DEFAULTS: LiveSettingsRow = {
  maxPerAgent: 3,
  escalateAfterMin: 5,
  hours: null,
  savedReplies: [],
};

export async function readLiveSettings(tx: TenantTx, tenantId: string): Promise<LiveSettingsRow> {
  const [row] = await tx
    .select({
      maxPerAgent: liveSettings.maxPerAgent,
      escalateAfterMin: liveSettings.escalateAfterMin,
      hours: liveSettings.hours,
      savedReplies: liveSettings.savedReplies,
    })
    .from(liveSettings)
    .where(eq(liveSettings.tenantId, tenantId));
  return row ? { ...row, hours: row.hours ?? null } : LIVE_DEFAULTS;
}

export async function writeLiveSettings(tx: TenantTx, tenantId: string, s: LiveSettingsRow): Promise<void> {
  await tx
    .insert(liveSettings)
    .values({ tenantId, ...s })
    .onConflictDoUpdate({ target: liveSettings.tenantId, set: { ...s, updatedAt: sql`now()` } });
}

/** Whether the agent set themselves away in this business's console. */
export async function isAway(tx: TenantTx, tenantId: string, userId: string): Promise<boolean> {
  const [row] = await tx
    .select({ away: livePresence.away })
    .from(livePresence)
    .where(and(eq(livePresence.tenantId, tenantId), eq(livePresence.userId, userId)));
  return row?.away ?? false;
}

/** A heartbeat of the agent's console, or their choice to be away (or back). */
export async function touchPresence(
  tx: TenantTx,
  tenantId: string,
  userId: string,
  away?: boolean,
): Promise<void> {
  await tx
    .insert(livePresence)
    .values({ tenantId, userId, away: away ?? false })
    .onConflictDoUpdate({
      target: [livePresence.tenantId, livePresence.userId],
      set: { seenAt: sql`now()`, ...(away !== undefined ? { away } : {}) },
    });
}

export type OnlineAgent = { id: string; name: string; load: number; lastAssignedAt: Date | null };

/**
 * The agents online now (a heartbeat after `since`, not away, still an admin or owner of the business), each
 * with how many conversations they hold (waiting for them or talking with them).
 */
export async function onlineAgents(tx: TenantTx, tenantId: string, since: Date): Promise<OnlineAgent[]> {
  const rows = await tx
    .select({
      id: users.id,
      name: users.name,
      email: users.email,
      lastAssignedAt: livePresence.lastAssignedAt,
      load: sql<number>`(select count(*)::int from ${conversations} c
        where c.tenant_id = ${tenantId} and c.live_agent_id = ${users.id}
          and c.live_state in ('waiting', 'person'))`,
    })
    .from(livePresence)
    .innerJoin(
      memberships,
      and(eq(memberships.tenantId, livePresence.tenantId), eq(memberships.userId, livePresence.userId)),
    )
    .innerJoin(users, eq(users.id, livePresence.userId))
    .where(
      and(
        eq(livePresence.tenantId, tenantId),
        eq(livePresence.away, false),
        gt(livePresence.seenAt, since),
        inArray(memberships.role, ["owner", "admin"]),
      ),
    );
  return rows.map((r) => ({
    id: r.id,
    name: displayName(r),
    load: r.load,
    lastAssignedAt: r.lastAssignedAt,
  }));
}

/** Round-robin: the agent just given a conversation goes to the back of the line. */
export async function markAssigned(tx: TenantTx, tenantId: string, userId: string): Promise<void> {
  await tx
    .update(livePresence)
    .set({ lastAssignedAt: sql`clock_timestamp()` })
    .where(and(eq(livePresence.tenantId, tenantId), eq(livePresence.userId, userId)));
}

/** Whether `userId` is an admin or owner of the business: who may be given a conversation. */
export async function isAgentMember(tx: TenantTx, tenantId: string, userId: string): Promise<boolean> {
  const [row] = await tx
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.tenantId, tenantId), eq(memberships.userId, userId)));
  return row?.role === "owner" || row?.role === "admin";
}
