import "server-only";
import { and, eq, sql } from "drizzle-orm";
import type { TenantTx } from "../client";
import { conversations, messages, toolRuns } from "../schema";

// Tenant path only: every function takes a TenantTx, so row-level security bounds what it can see.

/** A conversation only counts as found when it belongs to this visitor (the tenant is bounded by RLS). */
export async function findVisitorConversation(tx: TenantTx, id: string, visitorId: string) {
  const [row] = await tx
    .select()
    .from(conversations)
    .where(and(eq(conversations.id, id), eq(conversations.visitorId, visitorId)))
    .limit(1);
  return row ?? null;
}

export async function listMessages(tx: TenantTx, conversationId: string) {
  return tx
    .select()
    .from(messages)
    .where(eq(messages.conversationId, conversationId))
    .orderBy(messages.createdAt);
}

/**
 * Which pack each answer of a conversation ran and how it went, for the widget's chips after a reload; the
 * result only of a website search, whose passages are the answer's sources (other results stay server-side).
 */
export async function listToolRunChips(tx: TenantTx, conversationId: string) {
  return tx
    .select({
      messageId: toolRuns.messageId,
      packId: toolRuns.packId,
      outcome: toolRuns.outcome,
      result: sql<
        string | null
      >`case when ${toolRuns.packId} = 'search_knowledge' then ${toolRuns.result} end`,
      // A record the confirmation flow wrote (a card shown, declined, expired): no pack ran, so no chip.
      platform: sql<boolean>`${toolRuns.result} like '{"confirmation":%'`,
    })
    .from(toolRuns)
    .where(eq(toolRuns.conversationId, conversationId))
    .orderBy(toolRuns.createdAt);
}
