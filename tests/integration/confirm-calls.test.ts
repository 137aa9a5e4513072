import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { platformPacks } from "@/lib/chat/packs";
import { runTurn } from "@/lib/chat/run-turn";
import { auditLog, conversations, packConfigs, pendingToolCalls, tenants } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { sealSecret } from "@/lib/security/secrets";
import type { ChatEvent } from "@/shared/chat-events";
import {
  type ChatWorld,
  PLATFORM,
  pemFile,
  readEvents,
  SITE,
  type SseEvent,
  startChatWorld,
  textOf,
} from "../support/chat-world";
import { type FixtureSite, startFixtureSite } from "../support/fixture-site";

// Issue 41: a pack that acts for the visitor (post_json) runs only after the visitor's explicit Confirm on a
// card, exactly once, signed, with its idempotency key; Cancel, a new message, typed "yes" or ten minutes
// without a tap send nothing, and the model is told which.

// A Standard Webhooks secret: "whsec_" and base64 of the key (https://www.standardwebhooks.com/, "Signature
// scheme": the secret is base64 encoded and prefixed with whsec_).
const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

let w: ChatWorld;
let site: FixtureSite;
type Tenant = Awaited<ReturnType<ChatWorld["tenant"]>>;
let shop: Tenant;

const ORDER = { cake: "Chocolate", pickupDate: "2025-06-07", candles: true };

async function enablePostJson(t: Tenant) {
  await w.db.forTenant(t.id, (tx) =>
    tx.insert(packConfigs).values({
      tenantId: t.id,
      packId: "post_json",
      enabled: true,
      config: {
        baseUrl: site.origin,
        path: "/api/cake-orders",
        fields: [
          "cake | Cake | text | required | Which cake the visitor wants.",
          "pickupDate | Pick-up date | text | required | The pick-up day as YYYY-MM-DD.",
          "candles | Candles | yes/no | optional | Whether to add candles.",
        ],
        cardTitle: "Order this cake?",
        responseFields: ["reference"],
        whenToUse: "Use this when the visitor wants to order a cake.",
      },
      secrets: {
        signingSecret: sealSecret(SECRET, { tenantId: t.id, packId: "post_json", key: "signingSecret" }),
      },
    }),
  );
}

beforeAll(async () => {
  site = await startFixtureSite({
    routes: { "/api/cake-orders": { reference: "C-1042", internal: "not for the model" } },
  });
  w = await startChatWorld({ MICHI_FETCH_ALLOW_HOSTS: site.host, MICHI_FETCH_EXTRA_CA: pemFile(site.caPem) });
  shop = await w.tenant({ bot: { model: "fake-large" } });
  await enablePostJson(shop);
  w.fake.setRules([
    {
      match: "order a cake",
      steps: [
        {
          type: "tool_calls",
          calls: [{ id: "call_cake", name: "post_json", arguments: JSON.stringify(ORDER) }],
        },
        { type: "text", text: "Result: {{tool}}" },
      ],
    },
    { match: "never mind", steps: [{ type: "text", text: "No problem." }] },
    { match: "yes", steps: [{ type: "text", text: "Please use the button on the card." }] },
  ]);
});

afterAll(async () => {
  await w?.close();
  await site?.close();
});

afterEach(() => {
  vi.useRealTimers();
});

const posts = () => site.requests.filter((r) => r.method === "POST");

async function ask(t: Tenant, token: string, message: string, conversationId?: string) {
  const res = await w.chat(t.widgetKey, { message, conversationId, pageUrl: `${SITE}/` }, { token });
  expect(res.status).toBe(200);
  const events = await readEvents(res);
  const start = events.find((e) => e.event === "start")!.data as { conversationId: string };
  const card = events.find((e) => e.event === "confirm")?.data as
    | Extract<ChatEvent, { type: "confirm" }>["data"]
    | undefined;
  return { events, conversationId: start.conversationId, card };
}

async function decide(
  t: Tenant,
  token: string,
  conversationId: string,
  callId: string,
  decision: "confirm" | "cancel",
) {
  const { POST } = await import("@/app/api/widget/[key]/conversations/[id]/confirm/route");
  const req = new Request(`${PLATFORM}/api/widget/${t.widgetKey}/conversations/${conversationId}/confirm`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: SITE, authorization: `Bearer ${token}` },
    body: JSON.stringify({ callId, decision, lang: "en" }),
  });
  return POST(req, { params: Promise.resolve({ key: t.widgetKey, id: conversationId }) });
}

async function history(t: Tenant, token: string, conversationId: string) {
  const { GET } = await import("@/app/api/widget/[key]/conversations/[id]/route");
  const req = new Request(`${PLATFORM}/api/widget/${t.widgetKey}/conversations/${conversationId}?lang=en`, {
    headers: { origin: SITE, authorization: `Bearer ${token}` },
  });
  const res = await GET(req, { params: Promise.resolve({ key: t.widgetKey, id: conversationId }) });
  expect(res.status).toBe(200);
  return (await res.json()) as { pending?: { callId: string; title: string } };
}

const callRow = async (t: Tenant, id: string) =>
  (
    await w.db.forTenant(t.id, (tx) => tx.select().from(pendingToolCalls).where(eq(pendingToolCalls.id, id)))
  )[0]!;

/** What the model was told in the last request, as the tool's result for the card's call. */
const lastToolResult = () =>
  [...(w.fake.requests.at(-1)?.body.messages ?? [])].reverse().find((m) => m.role === "tool")?.content;

describe("a confirming pack on the widget", () => {
  it("stores the call and shows a card with the labelled values; nothing is sent yet", async () => {
    const before = posts().length;
    const token = await w.token(shop.widgetKey);
    const { card, events, conversationId } = await ask(shop, token, "I want to order a cake");
    expect(card).toMatchObject({
      title: "Order this cake?",
      fields: [
        { label: "Cake", value: "Chocolate" },
        { label: "Pick-up date", value: "2025-06-07" },
        { label: "Candles", value: "Yes" },
      ],
    });
    expect(JSON.stringify(card)).not.toContain('{"cake"');
    expect(events.at(-1)?.event).toBe("done");
    expect(posts().length).toBe(before);
    const row = await callRow(shop, card!.callId);
    expect(row).toMatchObject({ status: "pending", packId: "post_json", args: ORDER, conversationId });
    // After a reload the panel finds the same card.
    expect((await history(shop, token, conversationId)).pending).toMatchObject({ callId: card!.callId });
  });

  it("runs once on Confirm, signed and with the idempotency key, even for two taps at once", async () => {
    const before = posts().length;
    const token = await w.token(shop.widgetKey);
    const { card, conversationId } = await ask(shop, token, "order a cake please");
    const [a, b] = await Promise.all([
      decide(shop, token, conversationId, card!.callId, "confirm"),
      decide(shop, token, conversationId, card!.callId, "confirm"),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const ok = a.status === 200 ? a : b;
    const events: SseEvent[] = await readEvents(ok);
    expect(events.filter((e) => e.event === "chip").map((e) => e.data.state)).toEqual(["start", "done"]);
    expect(textOf(events)).toContain("C-1042");
    expect(textOf(events)).not.toContain("not for the model");
    expect(posts().length).toBe(before + 1);

    const sent = posts().at(-1)!;
    const row = await callRow(shop, card!.callId);
    expect(row.status).toBe("done");
    expect(sent.headers["idempotency-key"]).toBe(row.idempotencyKey);
    expect(sent.headers["webhook-id"]).toBe(row.idempotencyKey);
    // The receiving endpoint's check: the library's own verify accepts the request as michi signed it.
    const verified = new Webhook(SECRET).verify(sent.body, {
      "webhook-id": String(sent.headers["webhook-id"]),
      "webhook-timestamp": String(sent.headers["webhook-timestamp"]),
      "webhook-signature": String(sent.headers["webhook-signature"]),
    });
    expect(verified).toEqual(ORDER);
    expect(() =>
      new Webhook("whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA").verify(sent.body, {
        "webhook-id": String(sent.headers["webhook-id"]),
        "webhook-timestamp": String(sent.headers["webhook-timestamp"]),
        "webhook-signature": String(sent.headers["webhook-signature"]),
      }),
    ).toThrow();

    // A third tap later changes nothing; the card is gone after a reload.
    expect((await decide(shop, token, conversationId, card!.callId, "confirm")).status).toBe(409);
    expect(posts().length).toBe(before + 1);
    expect((await history(shop, token, conversationId)).pending).toBeUndefined();
    const audit = await w.db.forTenant(shop.id, (tx) =>
      tx.select().from(auditLog).where(eq(auditLog.target, card!.callId)),
    );
    expect(audit.map((r) => r.action).sort()).toEqual(["action.confirmed", "action.proposed"]);
  });

  it("sends nothing on Cancel, and the model is told the visitor declined", async () => {
    const before = posts().length;
    const token = await w.token(shop.widgetKey);
    const { card, conversationId } = await ask(shop, token, "order a cake for Sunday");
    const res = await decide(shop, token, conversationId, card!.callId, "cancel");
    expect(res.status).toBe(200);
    const events = await readEvents(res);
    expect(events.some((e) => e.event === "chip")).toBe(false);
    expect(String(lastToolResult())).toContain("Declined by the visitor");
    expect(posts().length).toBe(before);
    expect((await callRow(shop, card!.callId)).status).toBe("declined");
    expect((await decide(shop, token, conversationId, card!.callId, "confirm")).status).toBe(409);
    expect(posts().length).toBe(before);
  });

  it("a new visitor message, even a typed yes, declines the card and never confirms it", async () => {
    const before = posts().length;
    const token = await w.token(shop.widgetKey);
    const { card, conversationId } = await ask(shop, token, "order a cake with candles");
    const next = await ask(shop, token, "yes", conversationId);
    expect(textOf(next.events)).toBe("Please use the button on the card.");
    expect(String(lastToolResult())).toContain("wrote a new message instead");
    expect((await callRow(shop, card!.callId)).status).toBe("declined");
    expect(posts().length).toBe(before);
    expect((await decide(shop, token, conversationId, card!.callId, "confirm")).status).toBe(409);
    expect(posts().length).toBe(before);
  });

  it("expires after ten minutes: a late tap sends nothing and the model is told it expired", async () => {
    const before = posts().length;
    const token = await w.token(shop.widgetKey);
    const { card, conversationId } = await ask(shop, token, "order a cake for tomorrow");
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 10 * 60_000 + 1000);
    expect((await history(shop, token, conversationId)).pending).toBeUndefined();
    const res = await decide(shop, token, conversationId, card!.callId, "confirm");
    expect(res.status).toBe(200);
    await readEvents(res);
    expect(String(lastToolResult())).toContain("Expired");
    expect((await callRow(shop, card!.callId)).status).toBe("expired");
    expect(posts().length).toBe(before);
  });

  it("survives a restart between the card and the tap", async () => {
    const before = posts().length;
    const token = await w.token(shop.widgetKey);
    const { card, conversationId } = await ask(shop, token, "order a cake to pick up");
    // A new instance: fresh modules and per-process caches, the same database.
    const g = globalThis as Record<string, unknown>;
    for (const k of [
      "__michiEnv",
      "__michiLimiters",
      "__michiFetcher",
      "__michiStreams",
      "__michiKnownTenants",
    ])
      g[k] = undefined;
    vi.resetModules();
    expect((await history(shop, token, conversationId)).pending?.callId).toBe(card!.callId);
    const res = await decide(shop, token, conversationId, card!.callId, "confirm");
    expect(res.status).toBe(200);
    await readEvents(res);
    expect(posts().length).toBe(before + 1);
  });

  it("hides the card while a person has the conversation, and refuses the tap", async () => {
    const before = posts().length;
    const token = await w.token(shop.widgetKey);
    const { card, conversationId } = await ask(shop, token, "order a cake, chocolate");
    await w.db.platform
      .update(conversations)
      .set({ liveState: "person", liveVersion: 1 })
      .where(eq(conversations.id, conversationId));
    expect((await history(shop, token, conversationId)).pending).toBeUndefined();
    expect((await decide(shop, token, conversationId, card!.callId, "confirm")).status).toBe(409);
    expect(posts().length).toBe(before);
  });

  it("refuses another visitor's conversation and a call id of another conversation", async () => {
    const before = posts().length;
    const mine = await w.token(shop.widgetKey);
    const theirs = await w.token(shop.widgetKey);
    const a = await ask(shop, mine, "order a cake for Ana");
    const b = await ask(shop, theirs, "never mind");
    // The other visitor names my conversation: not theirs.
    expect((await decide(shop, theirs, a.conversationId, a.card!.callId, "confirm")).status).toBe(404);
    // The other visitor names my call in their own conversation: not of that conversation.
    expect((await decide(shop, theirs, b.conversationId, a.card!.callId, "confirm")).status).toBe(404);
    // A guessed id.
    const guess = "00000000-0000-4000-8000-000000000001";
    expect((await decide(shop, mine, a.conversationId, guess, "confirm")).status).toBe(404);
    expect(posts().length).toBe(before);
    expect((await callRow(shop, a.card!.callId)).status).toBe("pending");
  });

  it("does not offer confirming packs to the model when the business switched actions off", async () => {
    const off = await w.tenant({ bot: { model: "fake-large", actionsOff: true } });
    await enablePostJson(off);
    const token = await w.token(off.widgetKey);
    await ask(off, token, "never mind");
    const tools = (w.fake.requests.at(-1)?.body.tools ?? []) as { function: { name: string } }[];
    expect(tools.map((t) => t.function.name)).not.toContain("post_json");
    await w.db.platform
      .update(tenants)
      .set({ bot: { model: "fake-large" } })
      .where(eq(tenants.id, off.id));
  });

  it("denies on a channel without buttons and tells the model", async () => {
    const before = posts().length;
    const events: ChatEvent[] = [];
    await runTurn(
      { db: w.db, env: env(), packs: platformPacks },
      {
        tenant: shop,
        visitorId: "telegram:123",
        message: "order a cake now",
        origin: "telegram",
        pageUrl: "",
        locale: "en",
      },
      { emit: (e) => events.push(e), signal: new AbortController().signal },
    );
    expect(events.some((e) => e.type === "confirm")).toBe(false);
    expect(String(lastToolResult())).toContain("no buttons");
    expect(posts().length).toBe(before);
  });
});
