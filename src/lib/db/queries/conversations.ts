import "server-only";
import { and, desc, eq, ne } from "drizzle-orm";
import type { ToolRunResult } from "@/shared/tool-run";
import type { TenantTx } from "../client";
import { conversations, type MessageStatus, messages, toolRuns } from "../schema";

// Tenant path only: every function takes a TenantTx, so row-level security bounds what it can see.

export async function createConversation(
  tx: TenantTx,
  input: { tenantId: string; visitorId: string; origin: string; pageUrl: string; locale: string },
) {
  const [row] = await tx.insert(conversations).values(input).returning();
  if (!row) throw new Error("conversation insert returned nothing");
  return row;
}

/** A conversation only counts as found when it belongs to this visitor (the tenant is bounded by RLS). */
export async function findVisitorConversation(tx: TenantTx, id: string, visitorId: string) {
  const [row] = await tx
    .select()
    .from(conversations)
    .where(and(eq(conversations.id, id), eq(conversations.visitorId, visitorId)))
    .limit(1);
  return row ?? null;
}

export async function touchConversation(tx: TenantTx, id: string, at: Date = new Date()) {
  await tx.update(conversations).set({ lastActivityAt: at }).where(eq(conversations.id, id));
}

export type NewMessage = {
  /** Chosen by the caller when a retried insert must be recognisable (the end-of-turn store). */
  id?: string;
  tenantId: string;
  conversationId: string;
  role: "user" | "assistant";
  content: string;
  status?: MessageStatus;
  reason?: string | null;
  model?: string | null;
  promptTokens?: number;
  completionTokens?: number;
  usageEstimated?: boolean;
};

export async function insertMessage(tx: TenantTx, input: NewMessage) {
  const [row] = await tx.insert(messages).values(input).returning();
  if (!row) throw new Error("message insert returned nothing");
  return row;
}

/** Whether a message with this id is stored (a retry checking that an unacknowledged commit went through). */
export async function messageExists(tx: TenantTx, id: string): Promise<boolean> {
  const [row] = await tx.select({ id: messages.id }).from(messages).where(eq(messages.id, id)).limit(1);
  return row !== undefined;
}

/** The newest messages of a conversation with text, newest first; `exceptId` leaves out the turn's own message. */
export async function recentMessages(tx: TenantTx, conversationId: string, limit: number, exceptId?: string) {
  const where = exceptId
    ? and(eq(messages.conversationId, conversationId), ne(messages.id, exceptId))
    : eq(messages.conversationId, conversationId);
  return tx
    .select({ id: messages.id, role: messages.role, content: messages.content, status: messages.status })
    .from(messages)
    .where(where)
    .orderBy(desc(messages.createdAt), desc(messages.id))
    .limit(limit);
}

export async function listMessages(tx: TenantTx, conversationId: string) {
  return tx
    .select()
    .from(messages)
    .where(eq(messages.conversationId, conversationId))
    .orderBy(messages.createdAt);
}

export type NewToolRun = ToolRunResult & {
  tenantId: string;
  conversationId: string;
  messageId: string | null;
  callId: string;
};

export async function insertToolRuns(tx: TenantTx, runs: NewToolRun[]) {
  if (runs.length === 0) return [];
  return tx.insert(toolRuns).values(runs).returning();
}

/** Which pack each answer of a conversation ran and how it went, for the widget's chips after a reload. */
export async function listToolRunChips(tx: TenantTx, conversationId: string) {
  return tx
    .select({ messageId: toolRuns.messageId, packId: toolRuns.packId, outcome: toolRuns.outcome })
    .from(toolRuns)
    .where(eq(toolRuns.conversationId, conversationId))
    .orderBy(toolRuns.createdAt);
}
