import "server-only";
import { and, asc, count, eq, sql } from "drizzle-orm";
import { isUuid } from "@/shared/parse";
import type { TenantTx } from "../client";
import { conversations, messages, toolRuns } from "../schema";

// One conversation as the admin reads it, and its deletion. Tenant path only: RLS already hides other
// tenants' rows; the explicit tenant_id condition keeps the lookups on the tenant-leading indexes.

export type ConversationRow = typeof conversations.$inferSelect;
export type MessageRow = typeof messages.$inferSelect;
export type ToolRunRow = typeof toolRuns.$inferSelect;

export type Transcript = {
  conversation: ConversationRow;
  messages: MessageRow[];
  runs: ToolRunRow[];
  totals: { promptTokens: number; completionTokens: number; toolCalls: number };
};

/** The conversation with its messages and tool runs in order, or null (also for an id that is not a uuid). */
export async function getTranscript(tx: TenantTx, tenantId: string, id: string): Promise<Transcript | null> {
  if (!isUuid(id)) return null;
  const [conversation] = await tx
    .select()
    .from(conversations)
    .where(and(eq(conversations.tenantId, tenantId), eq(conversations.id, id)))
    .limit(1);
  if (!conversation) return null;
  const msgs = await tx
    .select()
    .from(messages)
    .where(and(eq(messages.tenantId, tenantId), eq(messages.conversationId, id)))
    .orderBy(asc(messages.createdAt), asc(messages.id));
  const runs = await tx
    .select()
    .from(toolRuns)
    .where(and(eq(toolRuns.tenantId, tenantId), eq(toolRuns.conversationId, id)))
    // Runs of one answer share a timestamp (stored together); the call id keeps their order stable.
    .orderBy(asc(toolRuns.createdAt), asc(toolRuns.callId), asc(toolRuns.id));
  const [sums] = await tx
    .select({
      promptTokens: sql<number>`coalesce(sum(${messages.promptTokens}), 0)::float8`,
      completionTokens: sql<number>`coalesce(sum(${messages.completionTokens}), 0)::float8`,
    })
    .from(messages)
    .where(and(eq(messages.tenantId, tenantId), eq(messages.conversationId, id)));
  return {
    conversation,
    messages: msgs,
    runs,
    totals: {
      promptTokens: Number(sums?.promptTokens ?? 0),
      completionTokens: Number(sums?.completionTokens ?? 0),
      toolCalls: runs.length,
    },
  };
}

export type TimelineItem = { kind: "message"; message: MessageRow } | { kind: "tool"; run: ToolRunRow };

/**
 * Messages in order, each bot answer preceded by the tool runs it made (they are stored with the answer's id),
 * so a trace sits between the visitor's question and the reply that used it. Runs without a message go last.
 */
export function timeline(t: Pick<Transcript, "messages" | "runs">): TimelineItem[] {
  const byMessage = new Map<string, ToolRunRow[]>();
  const orphans: ToolRunRow[] = [];
  const ids = new Set(t.messages.map((m) => m.id));
  for (const run of t.runs) {
    if (run.messageId && ids.has(run.messageId)) {
      const list = byMessage.get(run.messageId) ?? [];
      list.push(run);
      byMessage.set(run.messageId, list);
    } else orphans.push(run);
  }
  const out: TimelineItem[] = [];
  for (const message of t.messages) {
    for (const run of byMessage.get(message.id) ?? []) out.push({ kind: "tool", run });
    out.push({ kind: "message", message });
  }
  for (const run of orphans) out.push({ kind: "tool", run });
  return out;
}

/** Deletes one conversation (its messages and tool runs go with it by cascade); returns what was removed. */
export async function deleteConversationRow(
  tx: TenantTx,
  tenantId: string,
  id: string,
): Promise<{ messages: number } | null> {
  if (!isUuid(id)) return null;
  const [n] = await tx
    .select({ n: count() })
    .from(messages)
    .where(and(eq(messages.tenantId, tenantId), eq(messages.conversationId, id)));
  const deleted = await tx
    .delete(conversations)
    .where(and(eq(conversations.tenantId, tenantId), eq(conversations.id, id)))
    .returning({ id: conversations.id });
  return deleted.length > 0 ? { messages: Number(n?.n ?? 0) } : null;
}
