import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TenantContext } from "@/lib/auth/access";
import { createTenant } from "@/lib/db/queries/tenants";
import { auditLog, channelConnections, channelInbound, leads, liveEvents, tenants } from "@/lib/db/schema";
import { updateKindRetention } from "@/lib/insights/manage";
import { purgeExpiredKinds } from "@/lib/retention";
import { makeUser } from "../support/admin-world";
import { freshDb, type TestDb } from "../support/db";
import { addConversation } from "./insights-fixtures";

// Retention per kind (issue 46): contact requests and internal notes keep their own days, set on Data &
// retention; the channels' inbound log goes with the conversations' days. A business that sets nothing keeps
// its requests and notes as before.

const NOW = new Date("2026-06-30T12:00:00Z");
const daysAgo = (n: number) => new Date(NOW.getTime() - n * 86_400_000);

let t: TestDb;
let a: { id: string };
let b: { id: string };

async function seed(tenantId: string) {
  const conversationId = await addConversation(t.handle, tenantId, {
    startedAt: NOW.toISOString(),
    messages: [{ role: "user", at: NOW.toISOString() }],
  });
  await t.handle.forTenant(tenantId, async (tx) => {
    await tx.insert(leads).values([
      { tenantId, conversationId, email: "old@example.com", createdAt: daysAgo(40) },
      { tenantId, conversationId, email: "new@example.com", createdAt: daysAgo(5) },
    ]);
    await tx.insert(liveEvents).values([
      { tenantId, conversationId, kind: "note", data: { text: "old note" }, createdAt: daysAgo(10) },
      { tenantId, conversationId, kind: "note", data: { text: "new note" }, createdAt: daysAgo(1) },
      { tenantId, conversationId, kind: "visitor_message", data: { text: "hi" }, createdAt: daysAgo(10) },
    ]);
    const [conn] = await tx
      .insert(channelConnections)
      .values({ tenantId, channel: "whatsapp", key: `k-${tenantId}` })
      .returning();
    const row = { tenantId, connectionId: conn!.id, contact: "wa:hash", kind: "text", sentAt: daysAgo(100) };
    await tx.insert(channelInbound).values([
      { ...row, externalId: "old-done", status: "done", receivedAt: daysAgo(100) },
      { ...row, externalId: "old-pending", status: "pending", receivedAt: daysAgo(100) },
      { ...row, externalId: "new-done", status: "done", receivedAt: daysAgo(1) },
    ]);
  });
}

beforeAll(async () => {
  t = await freshDb();
  a = await createTenant(t.handle.platform, { slug: "kinds-a", name: "A" });
  b = await createTenant(t.handle.platform, { slug: "kinds-b", name: "B" });
  await t.handle.platform.update(tenants).set({ retentionDays: 90 }).where(eq(tenants.id, a.id));
  await t.handle.platform.update(tenants).set({ retentionDays: 365 }).where(eq(tenants.id, b.id));
  await seed(a.id);
  await seed(b.id);
});
afterAll(() => t?.close());

describe("retention per kind", () => {
  it("the owner sets days for requests and notes, and the change is audited", async () => {
    const owner = await makeUser(t.handle, "owner@kinds.test");
    const [row] = await t.handle.platform.select().from(tenants).where(eq(tenants.id, a.id));
    const ctx: TenantContext = {
      user: { id: owner.id, email: owner.email, name: "", isOperator: false, mustChangePassword: false },
      tenant: row!,
      role: "owner",
      db: t.handle,
    };
    await updateKindRetention(ctx, { leadRetentionDays: 30, noteRetentionDays: 7 });
    const [after] = await t.handle.platform.select().from(tenants).where(eq(tenants.id, a.id));
    expect(after).toMatchObject({ leadRetentionDays: 30, noteRetentionDays: 7 });
    const audit = await t.handle.platform.select().from(auditLog).where(eq(auditLog.tenantId, a.id));
    expect(audit.map((x) => x.action)).toContain("retention.kinds_updated");
  });

  it("the purge takes what is past each kind's days and leaves a business without them as it was", async () => {
    const r = await purgeExpiredKinds(t.handle, NOW);
    expect(r).toEqual({ leads: 1, notes: 1, inbound: 1 });
    const of = async (tenantId: string) =>
      t.handle.forTenant(tenantId, async (tx) => ({
        leads: (await tx.select().from(leads)).map((l) => l.email).sort(),
        events: (await tx.select().from(liveEvents)).map((e) => (e.data as { text: string }).text).sort(),
        inbound: (await tx.select().from(channelInbound)).map((i) => i.externalId).sort(),
      }));
    expect(await of(a.id)).toEqual({
      leads: ["new@example.com"],
      events: ["hi", "new note"],
      inbound: ["new-done", "old-pending"],
    });
    // B keeps requests and notes (no days set); its inbound log is inside its 365 days.
    expect(await of(b.id)).toEqual({
      leads: ["new@example.com", "old@example.com"],
      events: ["hi", "new note", "old note"],
      inbound: ["new-done", "old-done", "old-pending"],
    });
    const audit = await t.handle.platform.select().from(auditLog).where(eq(auditLog.tenantId, a.id));
    expect(audit.find((x) => x.action === "retention.kinds_purged")?.details).toMatchObject({
      leads: 1,
      notes: 1,
    });
  });
});
