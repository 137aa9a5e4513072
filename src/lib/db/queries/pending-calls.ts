import "server-only";
import { and, desc, eq, gt, lte } from "drizzle-orm";
import type { ToolOutcome } from "@/shared/tool-run";
import type { TenantTx } from "../client";
import { conversations, type PendingCallStatus, pendingToolCalls } from "../schema";

// Tenant path only: the calls of packs with `confirm` (drizzle/0046). Every read and update names the
// conversation as well as the call, so a call id from another conversation finds nothing. The instants are
// the caller's (its clock), never the database's, so expiry is one clock however the flow is driven.

export type PendingCall = typeof pendingToolCalls.$inferSelect;

export async function insertPendingCall(
  tx: TenantTx,
  row: {
    tenantId: string;
    conversationId: string;
    visitorMessageId: string | null;
    packId: string;
    callId: string;
    args: Record<string, unknown>;
    card: PendingCall["card"];
    createdAt: Date;
    expiresAt: Date;
  },
): Promise<PendingCall> {
  const [inserted] = await tx.insert(pendingToolCalls).values(row).returning();
  return inserted!;
}

/** One call of one conversation, whatever its status. */
export async function findCall(tx: TenantTx, conversationId: string, id: string) {
  const [row] = await tx
    .select()
    .from(pendingToolCalls)
    .where(and(eq(pendingToolCalls.id, id), eq(pendingToolCalls.conversationId, conversationId)))
    .limit(1);
  return row ?? null;
}

/** The conversation's card still waiting for the visitor at `now`, if any (the newest). */
export async function openCall(tx: TenantTx, conversationId: string, now: Date) {
  const [row] = await tx
    .select()
    .from(pendingToolCalls)
    .where(
      and(
        eq(pendingToolCalls.conversationId, conversationId),
        eq(pendingToolCalls.status, "pending"),
        gt(pendingToolCalls.expiresAt, now),
      ),
    )
    .orderBy(desc(pendingToolCalls.createdAt))
    .limit(1);
  return row ?? null;
}

/**
 * Moves a pending call on, only if it is still pending (and, for `running`, not expired at `now`): the one
 * conditional update that makes a double tap, or two instances racing, run the pack once. Null when another
 * decision came first.
 */
export async function moveCall(
  tx: TenantTx,
  conversationId: string,
  id: string,
  to: Extract<PendingCallStatus, "running" | "declined" | "expired">,
  now: Date,
) {
  const stillOpen =
    to === "expired" ? lte(pendingToolCalls.expiresAt, now) : gt(pendingToolCalls.expiresAt, now);
  const [row] = await tx
    .update(pendingToolCalls)
    .set({ status: to, decidedAt: now })
    .where(
      and(
        eq(pendingToolCalls.id, id),
        eq(pendingToolCalls.conversationId, conversationId),
        eq(pendingToolCalls.status, "pending"),
        stillOpen,
      ),
    )
    .returning();
  return row ?? null;
}

/** Closes every pending call of a conversation (a new visitor message): declined, or expired if past. */
export async function closeOpenCalls(tx: TenantTx, conversationId: string, now: Date) {
  const open = and(
    eq(pendingToolCalls.conversationId, conversationId),
    eq(pendingToolCalls.status, "pending"),
  );
  const expired = await tx
    .update(pendingToolCalls)
    .set({ status: "expired", decidedAt: now })
    .where(and(open, lte(pendingToolCalls.expiresAt, now)))
    .returning();
  const declined = await tx
    .update(pendingToolCalls)
    .set({ status: "declined", decidedAt: now })
    .where(open)
    .returning();
  return [...expired, ...declined];
}

/** Stores what the confirmed run produced. */
export async function finishCall(
  tx: TenantTx,
  id: string,
  done: { ok: boolean; result: string; outcome: ToolOutcome },
) {
  await tx
    .update(pendingToolCalls)
    .set({ status: done.ok ? "done" : "failed", result: done.result, outcome: done.outcome })
    .where(and(eq(pendingToolCalls.id, id), eq(pendingToolCalls.status, "running")));
}

/** Who answers the conversation now (a card is shown only while the bot does); null when it is gone. */
export async function liveStateOf(tx: TenantTx, conversationId: string) {
  const [row] = await tx
    .select({ live: conversations.liveState })
    .from(conversations)
    .where(eq(conversations.id, conversationId))
    .limit(1);
  return row?.live ?? null;
}
