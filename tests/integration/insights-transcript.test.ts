import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Role, TenantContext } from "@/lib/auth/access";
import { getTranscript, timeline } from "@/lib/db/queries/insights-transcript";
import { createTenant } from "@/lib/db/queries/tenants";
import { createUser } from "@/lib/db/queries/users";
import { auditLog, conversations, messages, tenants, toolRuns } from "@/lib/db/schema";
import { deleteConversation, retentionSchema, updateRetention } from "@/lib/insights/manage";
import { freshDb, type TestDb } from "../support/db";
import { addConversation } from "./insights-fixtures";

let t: TestDb;
let a: typeof tenants.$inferSelect;
let b: typeof tenants.$inferSelect;
let user: { id: string; email: string };
let convA: string;
let convB: string;

const ctx = (tenant: typeof tenants.$inferSelect, role: Role): TenantContext => ({
  user: { id: user.id, email: user.email, name: "", isOperator: false, mustChangePassword: false },
  tenant,
  role,
  db: t.handle,
});

beforeAll(async () => {
  t = await freshDb();
  a = await createTenant(t.handle.platform, { slug: "tr-a", name: "A" });
  b = await createTenant(t.handle.platform, { slug: "tr-b", name: "B" });
  user = await createUser(t.handle.platform, { email: "ada@example.com", passwordHash: null });
  convA = await addConversation(t.handle, a.id, {
    startedAt: "2025-03-01T10:00:00Z",
    pageUrl: "https://cafe.example/hours",
    locale: "es",
    messages: [
      { role: "user", at: "2025-03-01T10:00:00Z", content: "¿Abren hoy?" },
      {
        role: "assistant",
        at: "2025-03-01T10:00:04Z",
        content: "Sí, hasta las 18:00.",
        prompt: 300,
        completion: 12,
        runs: [
          { packId: "get_opening_status", args: { day: "today" }, result: '{"open":true,"closes":"18:00"}' },
          { packId: "get_weather", outcome: "timeout", durationMs: 8000, result: '{"error":"timeout"}' },
        ],
      },
      { role: "user", at: "2025-03-01T10:01:00Z", content: "Gracias" },
      { role: "assistant", at: "2025-03-01T10:01:02Z", content: "¡De nada!", prompt: 340, completion: 4 },
    ],
  });
  convB = await addConversation(t.handle, b.id, {
    startedAt: "2025-03-01T10:00:00Z",
    messages: [{ role: "user", at: "2025-03-01T10:00:00Z", content: "B's secret" }],
  });
});

afterAll(() => t?.close());

describe("transcript", () => {
  it("puts each tool trace between the question and the answer that used it", async () => {
    const tr = await t.handle.forTenant(a.id, (tx) => getTranscript(tx, a.id, convA));
    expect(tr?.conversation).toMatchObject({ pageUrl: "https://cafe.example/hours", locale: "es" });
    const items = timeline(tr!).map((i) => (i.kind === "tool" ? `tool:${i.run.packId}` : i.message.content));
    expect(items).toEqual([
      "¿Abren hoy?",
      "tool:get_opening_status",
      "tool:get_weather",
      "Sí, hasta las 18:00.",
      "Gracias",
      "¡De nada!",
    ]);
    const run = tr!.runs[0]!;
    expect(run).toMatchObject({
      args: { day: "today" },
      result: '{"open":true,"closes":"18:00"}',
      outcome: "ok",
    });
    expect(tr!.totals).toEqual({ promptTokens: 640, completionTokens: 16, toolCalls: 2 });
  });

  it("another tenant's conversation id is simply not found", async () => {
    expect(await t.handle.forTenant(a.id, (tx) => getTranscript(tx, a.id, convB))).toBeNull();
    // Even naming B's tenant id from inside A's scope finds nothing: RLS holds.
    expect(await t.handle.forTenant(a.id, (tx) => getTranscript(tx, b.id, convB))).toBeNull();
    expect(await t.handle.forTenant(a.id, (tx) => getTranscript(tx, a.id, "not-a-uuid"))).toBeNull();
  });
});

describe("deleting a conversation", () => {
  it("a viewer is refused and nothing changes", async () => {
    await expect(deleteConversation(ctx(a, "viewer"), convA)).rejects.toMatchObject({ code: "forbidden" });
    const still = await t.handle.platform.select().from(conversations).where(eq(conversations.id, convA));
    expect(still).toHaveLength(1);
  });

  it("cannot reach another tenant's conversation", async () => {
    await expect(deleteConversation(ctx(a, "owner"), convB)).rejects.toMatchObject({ code: "not_found" });
    const still = await t.handle.platform.select().from(conversations).where(eq(conversations.id, convB));
    expect(still).toHaveLength(1);
  });

  it("an admin deletes it with its messages and tool runs, and the audit log says who", async () => {
    expect(await deleteConversation(ctx(a, "admin"), convA)).toEqual({ messages: 4 });
    expect(await t.handle.platform.select().from(conversations).where(eq(conversations.id, convA))).toEqual(
      [],
    );
    expect(await t.handle.platform.select().from(messages).where(eq(messages.conversationId, convA))).toEqual(
      [],
    );
    expect(await t.handle.platform.select().from(toolRuns).where(eq(toolRuns.conversationId, convA))).toEqual(
      [],
    );
    const [entry] = await t.handle.platform
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, "conversation.deleted"));
    expect(entry).toMatchObject({
      tenantId: a.id,
      actorUserId: user.id,
      actorLabel: "ada@example.com",
      target: convA,
      details: { messages: 4 },
    });
    // Deleting again is a plain "not found", not an error page.
    await expect(deleteConversation(ctx(a, "admin"), convA)).rejects.toMatchObject({ code: "not_found" });
  });
});

describe("retention setting", () => {
  it("validates the number of days", () => {
    expect(retentionSchema.safeParse({ retentionDays: "30" }).data).toEqual({ retentionDays: 30 });
    for (const bad of ["0", "3651", "1.5", "abc", ""])
      expect(retentionSchema.safeParse({ retentionDays: bad }).success).toBe(false);
  });

  it("a viewer cannot change it", async () => {
    await expect(updateRetention(ctx(a, "viewer"), 7)).rejects.toMatchObject({ code: "forbidden" });
    const [row] = await t.handle.platform.select().from(tenants).where(eq(tenants.id, a.id));
    expect(row?.retentionDays).toBe(90);
  });

  it("an admin changes it for their tenant only, with an audit entry", async () => {
    expect(await updateRetention(ctx(a, "admin"), 30)).toEqual({ from: 90, to: 30 });
    const rows = await t.handle.platform.select().from(tenants);
    expect(Object.fromEntries(rows.map((r) => [r.slug, r.retentionDays]))).toEqual({
      "tr-a": 30,
      "tr-b": 90,
    });
    const entries = await t.handle.platform
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, "retention.updated"));
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ tenantId: a.id, details: { from: 90, to: 30 } });
    // Saving the same value again is not a change worth an entry.
    await updateRetention(ctx(a, "owner"), 30);
    expect(
      await t.handle.platform.select().from(auditLog).where(eq(auditLog.action, "retention.updated")),
    ).toHaveLength(1);
  });
});
