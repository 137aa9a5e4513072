import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendLiveEvent, readLiveEvents } from "@/lib/db/queries/live-events";
import { createTenant } from "@/lib/db/queries/tenants";
import { conversations } from "@/lib/db/schema";
import { freshDb, type TestDb } from "../support/db";

let t: TestDb;
beforeAll(async () => {
  t = await freshDb();
});
afterAll(() => t.close());

describe("live log", () => {
  it("appends under the tenant and reads back in seq order", async () => {
    const tenant = await createTenant(t.handle.platform, { slug: "a", name: "A" });
    const [conv] = await t.handle.platform
      .insert(conversations)
      .values({ tenantId: tenant.id, visitorId: "v" })
      .returning();
    const seqs = await t.handle.forTenant(tenant.id, async (tx) => [
      await appendLiveEvent(tx, {
        conversationId: conv!.id,
        kind: "visitor_message",
        data: { messageId: "m", text: "hi" },
      }),
      await appendLiveEvent(tx, {
        conversationId: conv!.id,
        kind: "note",
        data: { text: "n", author: { id: "u", name: "U" } },
      }),
    ]);
    expect(seqs[1]).toBeGreaterThan(seqs[0]!);
    const rows = await readLiveEvents(t.handle, tenant.id, {
      after: 0,
      limit: 10,
      conversationId: conv!.id,
      kinds: ["visitor_message"],
    });
    expect(rows.map((r) => r.kind)).toEqual(["visitor_message"]);
    const other = await createTenant(t.handle.platform, { slug: "b", name: "B" });
    await expect(
      t.handle.forTenant(other.id, (tx) =>
        appendLiveEvent(tx, {
          conversationId: conv!.id,
          kind: "bot_message",
          data: { messageId: "x", text: "x" },
        }),
      ),
    ).rejects.toMatchObject({ cause: { message: expect.stringMatching(/not the tenant/) } });
  });
});
