import type { DbHandle } from "@/lib/db/client";
import { conversations, type MessageStatus, messages, toolRuns } from "@/lib/db/schema";
import type { ToolOutcome } from "@/shared/tool-run";

// Seeding helpers for the Insights tests: conversations with explicit timestamps, so expected numbers can be
// worked out by hand. Written through db.platform because they stand in for the chat engine's own writes.

export type RunSpec = {
  packId: string;
  outcome?: ToolOutcome;
  durationMs?: number;
  args?: unknown;
  result?: string;
  resultTokens?: number;
};

export type MessageSpec = {
  role: "user" | "assistant";
  at: string;
  content?: string;
  status?: MessageStatus;
  reason?: string | null;
  prompt?: number;
  completion?: number;
  runs?: RunSpec[];
};

export type ConversationSpec = {
  startedAt: string;
  lastActivityAt?: string;
  visitorId?: string;
  origin?: string;
  pageUrl?: string;
  locale?: string;
  messages?: MessageSpec[];
};

export async function addConversation(
  db: DbHandle,
  tenantId: string,
  spec: ConversationSpec,
): Promise<string> {
  const msgs = spec.messages ?? [];
  const last =
    spec.lastActivityAt ??
    msgs
      .map((m) => m.at)
      .sort()
      .at(-1) ??
    spec.startedAt;
  const [c] = await db.platform
    .insert(conversations)
    .values({
      tenantId,
      visitorId: spec.visitorId ?? "visitor-1",
      origin: spec.origin ?? "https://shop.example",
      pageUrl: spec.pageUrl ?? "https://shop.example/contact",
      locale: spec.locale ?? "en",
      startedAt: new Date(spec.startedAt),
      lastActivityAt: new Date(last),
    })
    .returning({ id: conversations.id });
  for (const m of msgs) {
    const [row] = await db.platform
      .insert(messages)
      .values({
        tenantId,
        conversationId: c!.id,
        role: m.role,
        content: m.content ?? (m.role === "user" ? "Hello" : "Hi there"),
        status: m.status ?? "complete",
        reason: m.reason ?? null,
        model: m.role === "assistant" ? "fake-small" : null,
        promptTokens: m.prompt ?? 0,
        completionTokens: m.completion ?? 0,
        createdAt: new Date(m.at),
      })
      .returning({ id: messages.id });
    const runs = m.runs ?? [];
    if (runs.length > 0)
      await db.platform.insert(toolRuns).values(
        runs.map((r, i) => {
          const result = r.result ?? JSON.stringify({ open: true });
          return {
            tenantId,
            conversationId: c!.id,
            messageId: row!.id,
            packId: r.packId,
            callId: `call_${i}`,
            args: r.args ?? {},
            result,
            resultChars: result.length,
            resultTokens: r.resultTokens ?? Math.ceil(result.length / 4),
            durationMs: r.durationMs ?? 100,
            outcome: r.outcome ?? "ok",
            createdAt: new Date(m.at),
          };
        }),
      );
  }
  return c!.id;
}
