import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TenantContext } from "@/lib/auth/access";
import { liveMetrics } from "@/lib/db/queries/live-metrics";
import { conversations } from "@/lib/db/schema";
import { recordPresence } from "@/lib/live/presence";
import { sendAgentReply } from "@/lib/live/reply";
import { requestPerson } from "@/lib/live/request";
import { closeLiveConversation, handBackConversation } from "@/lib/live/takeover";
import { setProcessQueue } from "@/lib/queue";
import { makeTenant, makeUser } from "../support/admin-world";
import { freshDb, type TestDb } from "../support/db";

// Usage's first response time and time to close for conversations a person handled (issue #28): the use cases
// record when a visitor asked, when a person first answered and when their part ended; Usage shows medians.

let t: TestDb;
let agent: TenantContext;
let n = 0;

async function handled(end: "bot" | "closed") {
  const visitorId = `v-${++n}`;
  const tenantId = agent.tenant.id;
  const [c] = await t.handle.platform.insert(conversations).values({ tenantId, visitorId }).returning();
  await requestPerson(t.handle, { tenantId, visitorId, conversationId: c!.id });
  await sendAgentReply(agent, { conversationId: c!.id, text: "Hello, Ana here." });
  await (end === "bot" ? handBackConversation : closeLiveConversation)(agent, { conversationId: c!.id });
  return c!.id;
}

beforeAll(async () => {
  t = await freshDb();
  setProcessQueue({ sendIn: async () => "job", send: async () => "job", stop: async () => {} });
  const ana = await makeUser(t.handle, "ana@usage.test", { name: "Ana" });
  const tenant = await makeTenant(t.handle, "live-usage", [[ana, "owner"]]);
  agent = {
    user: { ...ana, isOperator: false, mustChangePassword: false },
    tenant,
    role: "owner",
    db: t.handle,
  };
  await recordPresence(agent, {});
});

afterAll(async () => {
  setProcessQueue(null);
  await t?.close();
});

describe("live figures on Usage", () => {
  it("medians of the first response and of the time to close, over the period's requests", async () => {
    const a = await handled("bot");
    const b = await handled("closed");
    const rows = await t.handle.platform.select().from(conversations).where(eq(conversations.id, a));
    expect(rows[0]?.liveFirstResponseAt).not.toBeNull();
    expect(rows[0]?.liveEndedAt).not.toBeNull();
    // Fixed times, so the medians are known: 60 s and 180 s to the first answer, 10 and 30 minutes to the end.
    const at = (s: number) => new Date(Date.parse("2026-11-20T10:00:00Z") + s * 1000);
    for (const [id, first, end] of [
      [a, 60, 600],
      [b, 180, 1800],
    ] as const)
      await t.handle.platform
        .update(conversations)
        .set({ liveRequestedAt: at(0), liveFirstResponseAt: at(first), liveEndedAt: at(end) })
        .where(eq(conversations.id, id));
    const figures = await t.handle.forTenant(agent.tenant.id, (tx) =>
      liveMetrics(tx, agent.tenant.id, { since: at(-3600), until: at(3600) }),
    );
    expect(figures).toEqual({
      requested: 2,
      answered: 2,
      firstResponseMedianSec: 120,
      closed: 2,
      closeMedianSec: 1200,
    });
    const none = await t.handle.forTenant(agent.tenant.id, (tx) =>
      liveMetrics(tx, agent.tenant.id, { since: at(7200), until: at(9000) }),
    );
    expect(none).toMatchObject({ requested: 0, firstResponseMedianSec: null });
  });
});
