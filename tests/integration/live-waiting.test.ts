import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TenantContext } from "@/lib/auth/access";
import { writeLiveSettings } from "@/lib/db/queries/live-presence";
import { addMembership } from "@/lib/db/queries/users";
import { conversations } from "@/lib/db/schema";
import { recordPresence } from "@/lib/live/presence";
import { requestPerson } from "@/lib/live/request";
import { type JobQueue, setProcessQueue } from "@/lib/queue";
import { makeUser } from "../support/admin-world";
import { type ChatWorld, startChatWorld } from "../support/chat-world";

// Issue 45 item 4: a visitor waiting for a person is told the business's usual wait (from its own recent live
// conversations, not a promise made up) and, after the business's alert delay, offered the contact form
// instead. The panel reads both from the live request's answer.

let w: ChatWorld;
let shop: Awaited<ReturnType<ChatWorld["tenant"]>>;
let n = 0;
// The escalation job a request schedules is live-escalation.test.ts's; here it only needs somewhere to go.
const queue: JobQueue = { sendIn: async () => "job", send: async () => "job", stop: async () => {} };

const ask = async () => {
  const visitorId = `waiting-${++n}`;
  const [c] = await w.db.platform.insert(conversations).values({ tenantId: shop.id, visitorId }).returning();
  return requestPerson(w.db, { tenantId: shop.id, visitorId, conversationId: c!.id });
};

/** A live conversation of the past: asked `daysAgo`, first answered `sec` seconds later. */
const answeredBefore = (daysAgo: number, sec: number) => {
  const at = new Date(Date.now() - daysAgo * 86_400_000);
  return w.db.platform.insert(conversations).values({
    tenantId: shop.id,
    visitorId: `past-${++n}`,
    liveRequestedAt: at,
    liveFirstResponseAt: new Date(at.getTime() + sec * 1000),
  });
};

beforeAll(async () => {
  setProcessQueue(queue);
  w = await startChatWorld();
  shop = await w.tenant();
  const user = await makeUser(w.db, "agent@waiting.test");
  await addMembership(w.db.platform, shop.id, user.id, "owner");
  const owner: TenantContext = {
    db: w.db,
    tenant: shop,
    role: "owner",
    user: { id: user.id, email: user.email, name: "Ana", isOperator: false, mustChangePassword: false },
  };
  await w.db.forTenant(shop.id, (tx) =>
    writeLiveSettings(tx, shop.id, { maxPerAgent: 50, escalateAfterMin: 7, hours: null, savedReplies: [] }),
  );
  await recordPresence(owner, {});
}, 60_000);
afterAll(async () => {
  setProcessQueue(null);
  await w?.close();
});

describe("a visitor waiting for a person", () => {
  it("is offered the contact form after the business's alert delay, with no made-up wait when there is no history", async () => {
    expect(await ask()).toMatchObject({
      live: true,
      state: "waiting",
      expectedWaitMin: null,
      offerContactAfterSec: 420,
    });
  });

  it("is told the usual wait from the last 30 days' first answers, rounded up to whole minutes", async () => {
    // Two answered requests say too little; an old one (40 days) does not count.
    await answeredBefore(1, 150);
    await answeredBefore(2, 200);
    await answeredBefore(40, 3600);
    expect(await ask()).toMatchObject({ expectedWaitMin: null });
    await answeredBefore(3, 400);
    // Median of 150, 200, 400 s is 200 s: "within 4 min".
    expect(await ask()).toMatchObject({ expectedWaitMin: 4, offerContactAfterSec: 420 });
  });
});
