import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as askFromMenu } from "@/app/api/widget/[key]/live/route";
import type { TenantContext } from "@/lib/auth/access";
import { readLiveEvents } from "@/lib/db/queries/live-events";
import { addMembership } from "@/lib/db/queries/users";
import { conversations, livePresence, messages, type tenants } from "@/lib/db/schema";
import { closeLiveWakes } from "@/lib/live/bus";
import { recordPresence } from "@/lib/live/presence";
import { type JobQueue, setProcessQueue } from "@/lib/queue";
import { verifyVisitorToken } from "@/lib/security/visitor-token";
import { makeUser } from "../support/admin-world";
import { type ChatWorld, PLATFORM, readEvents, SITE, startChatWorld } from "../support/chat-world";
import { visitorConversation } from "../support/live";

// "Talk to a person" from the panel's menu (issue #28), before the visitor has written anything: when
// someone can chat, it opens a live request as it does after a message, creating the conversation; when
// nobody can, nothing is created and the panel shows the contact form.

type Tenant = typeof tenants.$inferSelect;
let w: ChatWorld;
let shop: Tenant;
let ana: Awaited<ReturnType<typeof makeUser>>;
const queue: JobQueue = { sendIn: async () => "job", send: async () => "job", stop: async () => {} };

beforeAll(async () => {
  w = await startChatWorld();
  setProcessQueue(queue);
  shop = await w.tenant();
  ana = await makeUser(w.db, "ana@shop.example", { name: "Ana" });
  await addMembership(w.db.platform, shop.id, ana.id, "owner");
});
afterAll(async () => {
  setProcessQueue(null);
  await closeLiveWakes();
  await w?.close();
});

const anaCtx = (): TenantContext => ({
  user: { ...ana, isOperator: false, mustChangePassword: false },
  tenant: shop,
  role: "owner",
  db: w.db,
});

const ask = (token: string, body: unknown) =>
  askFromMenu(
    new Request(`${PLATFORM}/api/widget/${shop.widgetKey}/live`, {
      method: "POST",
      headers: { origin: SITE, authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
    { params: Promise.resolve({ key: shop.widgetKey }) },
  );

const visitorOf = (token: string) => {
  const v = verifyVisitorToken(process.env.MICHI_AUTH_SECRET!, token, shop.id);
  if (!v.ok) throw new Error("bad token");
  return v.claims.visitorId;
};
const conversationsOf = (visitorId: string) =>
  w.db.platform
    .select()
    .from(conversations)
    .where(and(eq(conversations.tenantId, shop.id), eq(conversations.visitorId, visitorId)));

describe("Talk to a person before the first message", () => {
  it("with nobody online: the contact form's answer, and no conversation is created", async () => {
    await w.db.platform.delete(livePresence);
    const token = await w.token(shop.widgetKey);
    const res = await ask(token, { lang: "en", pageUrl: "https://shop.example/pricing?x=1" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ live: false, reason: "nobody_online" });
    expect(await conversationsOf(visitorOf(token))).toEqual([]);
  });

  it("with an agent online: the visitor waits in a new conversation of theirs, and their words reach the person", async () => {
    await recordPresence(anaCtx(), { away: "false" });
    const token = await w.token(shop.widgetKey);
    const res = await ask(token, {
      lang: "de-AT",
      pageUrl: "https://shop.example/pricing?email=a@b.example",
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { live: boolean; state: string; conversationId: string };
    expect(body).toMatchObject({ live: true, state: "waiting" });

    const [c, ...more] = await conversationsOf(visitorOf(token));
    expect(more).toEqual([]);
    expect(c).toMatchObject({
      id: body.conversationId,
      liveState: "waiting",
      liveAgentId: ana.id,
      locale: "de",
      // As a chat turn stores it: the page without its query string (it may carry personal data).
      pageUrl: "https://shop.example/pricing",
      origin: "https://shop.example",
    });
    const log = await readLiveEvents(w.db, shop.id, { after: 0, conversationId: c!.id, limit: 10 });
    expect(log.map((e) => e.kind)).toEqual(["state", "assigned"]);

    // The visitor's first message goes into that conversation and waits for the person: no model call.
    const calls = w.fake.requests.length;
    const turn = await w.chat(
      shop.widgetKey,
      { conversationId: c!.id, message: "Do you ship to Vienna?" },
      { token },
    );
    expect(turn.status).toBe(200);
    await readEvents(turn);
    expect(w.fake.requests.length).toBe(calls);
    const stored = await w.db.platform.select().from(messages).where(eq(messages.conversationId, c!.id));
    expect(stored.map((m) => [m.role, m.content])).toEqual([["user", "Do you ship to Vienna?"]]);

    // Asking again in it is not a second request.
    expect(await (await ask(token, { conversationId: c!.id })).json()).toEqual({
      live: true,
      state: "waiting",
      conversationId: c!.id,
      expectedWaitMin: null,
      offerContactAfterSec: 300,
    });
  });

  it("refuses another visitor's conversation named in the body, as if it did not exist", async () => {
    await recordPresence(anaCtx(), { away: "false" });
    const owner = await w.token(shop.widgetKey);
    const id = await visitorConversation(w.db, shop, owner, process.env.MICHI_AUTH_SECRET!);
    const res = await ask(await w.token(shop.widgetKey), { conversationId: id });
    expect(res.status).toBe(404);
    const [c] = await w.db.platform.select().from(conversations).where(eq(conversations.id, id));
    expect(c!.liveState).toBe("bot");
  });
});
