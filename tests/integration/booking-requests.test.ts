import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { ChatEvent } from "@/shared/chat-events";
import { makeUser } from "../support/admin-world";
import { type ChatWorld, PLATFORM, readEvents, SITE, startChatWorld, textOf } from "../support/chat-world";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { startTestWebhookQueue } from "../support/webhooks";

// Issue 41 item 3, without a booking system: the request_booking pack. The visitor's request (name, contact,
// day, time, party size, a note) is shown on a card and goes nowhere until they confirm; then it is in the
// Inbox as a booking request, mailed to the business, and sent as a booking.requested webhook carrying the
// confirmed call's idempotency key. The model is told it is a request, never a confirmed booking.

vi.mock("@/lib/auth/claims", () => import("../support/admin-mocks").then((m) => m.claimsModule));
vi.mock("next/headers", () => import("../support/admin-mocks").then((m) => m.headersModule));
vi.mock("next/cache", () => import("../support/admin-mocks").then((m) => m.cacheModule));

const { addMembership } = await import("@/lib/db/queries/users");
const { createWebhookEndpoint } = await import("@/lib/webhooks/endpoints");
const { installWebhookQueue } = await import("@/lib/webhooks/worker");
const { bookingDeskFor } = await import("@/lib/leads/booking");
const { leads, mailOutbox, packConfigs, pendingToolCalls } = await import("@/lib/db/schema");

let w: ChatWorld;
let receiver: WebhookReceiver;
let queue: { stop(): Promise<void> };
type Tenant = Awaited<ReturnType<ChatWorld["tenant"]>>;
let shop: Tenant;

const ARGS = {
  name: "Ana",
  contact: "ana@example.com",
  date: "2026-12-24",
  time: "19:30",
  partySize: 4,
  note: "A table by the window",
};

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  w = await startChatWorld({ MICHI_FETCH_ALLOW_HOSTS: receiver.host, MICHI_MAIL_OUTBOX: "true" });
  queue = await startTestWebhookQueue(w.db, receiver);
  shop = await w.tenant({ bot: { model: "fake-large" } });
  const owner = await makeUser(w.db, `owner-${shop.slug}@booking.test`);
  await addMembership(w.db.platform, shop.id, owner.id, "owner");
  await w.db.forTenant(shop.id, (tx) =>
    tx.insert(packConfigs).values({
      tenantId: shop.id,
      packId: "request_booking",
      enabled: true,
      config: { kind: "table", services: [], maxPartySize: 8, notifyEmail: "bookings@shop.example" },
    }),
  );
  const ctx = {
    db: w.db,
    tenant: shop,
    role: "owner",
    user: { id: owner.id, email: owner.email, name: "", isOperator: false, mustChangePassword: false },
  };
  await createWebhookEndpoint(ctx as never, {
    url: receiver.url(`/hook-${shop.slug}`),
    description: "",
    events: ["booking.requested"],
  });
  w.fake.setRules([
    {
      match: "big party",
      steps: [
        {
          type: "tool_calls",
          calls: [
            {
              id: "call_big",
              name: "request_booking",
              arguments: JSON.stringify({ ...ARGS, partySize: 40 }),
            },
          ],
        },
        { type: "text", text: "That party is too large to book here." },
      ],
    },
    {
      match: "book a table",
      steps: [
        {
          type: "tool_calls",
          calls: [{ id: "call_book", name: "request_booking", arguments: JSON.stringify(ARGS) }],
        },
        { type: "text", text: "Your request is sent; the restaurant will confirm it by e-mail." },
      ],
    },
  ]);
}, 60_000);
afterAll(async () => {
  await queue?.stop();
  installWebhookQueue(null);
  await receiver?.close();
  await w?.close();
});

async function ask(token: string, message: string) {
  const res = await w.chat(shop.widgetKey, { message, pageUrl: `${SITE}/` }, { token });
  const events = await readEvents(res);
  const start = events.find((e) => e.event === "start")!.data as { conversationId: string };
  const card = events.find((e) => e.event === "confirm")?.data as
    | Extract<ChatEvent, { type: "confirm" }>["data"]
    | undefined;
  return { events, conversationId: start.conversationId, card };
}

async function decide(token: string, conversationId: string, callId: string, decision: "confirm" | "cancel") {
  const { POST } = await import("@/app/api/widget/[key]/conversations/[id]/confirm/route");
  const req = new Request(
    `${PLATFORM}/api/widget/${shop.widgetKey}/conversations/${conversationId}/confirm`,
    {
      method: "POST",
      headers: { "content-type": "application/json", origin: SITE, authorization: `Bearer ${token}` },
      body: JSON.stringify({ callId, decision, lang: "en" }),
    },
  );
  return readEvents(
    await POST(req, { params: Promise.resolve({ key: shop.widgetKey, id: conversationId }) }),
  );
}

const bookings = () =>
  w.db.forTenant(shop.id, (tx) =>
    tx
      .select()
      .from(leads)
      .where(and(eq(leads.tenantId, shop.id), eq(leads.kind, "booking"))),
  );
const lastToolResult = () =>
  String(
    [...(w.fake.requests.at(-1)?.body.messages ?? [])].reverse().find((m) => m.role === "tool")?.content,
  );

describe("request_booking", () => {
  it("files nothing before Confirm; then the Inbox, a mail and booking.requested with the key, as a request", async () => {
    const token = await w.token(shop.widgetKey);
    const { card, conversationId } = await ask(token, "I'd like to book a table for Christmas Eve");
    expect(card).toMatchObject({
      title: "Send this booking request?",
      fields: [
        { label: "Name", value: "Ana" },
        { label: "Contact", value: "ana@example.com" },
        { label: "Date", value: "2026-12-24" },
        { label: "Time", value: "19:30" },
        { label: "Party size", value: "4" },
        { label: "Note", value: "A table by the window" },
      ],
    });
    expect(await bookings()).toHaveLength(0);
    expect(receiver.received).toHaveLength(0);

    const events = await decide(token, conversationId, card!.callId, "confirm");
    expect(textOf(events)).toBe("Your request is sent; the restaurant will confirm it by e-mail.");
    // The model is told it is a request, never that the booking is confirmed.
    const told = JSON.parse(lastToolResult()) as { status: string; note: string };
    expect(told.status).toBe("requested");
    expect(told.note).toContain("NOT a confirmed booking");

    const [row] = await bookings();
    expect(row).toMatchObject({
      name: "Ana",
      email: "ana@example.com",
      phone: "",
      conversationId,
      status: "new",
    });
    expect(row!.message).toContain("Booking request for 2026-12-24 at 19:30");
    expect(row!.message).toContain("Party size: 4");
    expect(row!.message).toContain("Not confirmed yet");
    const [call] = await w.db.forTenant(shop.id, (tx) =>
      tx.select().from(pendingToolCalls).where(eq(pendingToolCalls.id, card!.callId)),
    );
    expect(row!.requestKey).toBe(call!.idempotencyKey);

    const [hook] = await receiver.waitFor(1);
    const body = JSON.parse(hook!.body) as { type: string; data: { booking: Record<string, unknown> } };
    expect(body.type).toBe("booking.requested");
    expect(body.data.booking).toMatchObject({
      id: row!.id,
      status: "requested",
      name: "Ana",
      contact: "ana@example.com",
      date: "2026-12-24",
      time: "19:30",
      partySize: 4,
      service: null,
      note: "A table by the window",
      conversationId,
      idempotencyKey: call!.idempotencyKey,
    });

    const mails = await w.db.platform.select().from(mailOutbox).where(eq(mailOutbox.tenantId, shop.id));
    expect(mails.map((m) => m.toAddress).sort()).toEqual(
      ["bookings@shop.example", `owner-${shop.slug}@booking.test`].sort(),
    );
    expect(mails[0]!.subject).toBe("New booking request from Ana");
    expect(mails[0]!.bodyText).toContain("It is not booked yet");

    // The same confirmed call filed again (a repeated run) is the same request: no second row, event or mail.
    const again = await bookingDeskFor(w.db)(shop.id, ARGS, {
      conversationId,
      idempotencyKey: call!.idempotencyKey,
    });
    expect(again.id).toBe(row!.id);
    expect(await bookings()).toHaveLength(1);
    const mailsAfter = await w.db.platform.select().from(mailOutbox).where(eq(mailOutbox.tenantId, shop.id));
    expect(mailsAfter).toHaveLength(mails.length);
  });

  it("files nothing on Cancel", async () => {
    const before = (await bookings()).length;
    const token = await w.token(shop.widgetKey);
    const { card, conversationId } = await ask(token, "book a table for two");
    await decide(token, conversationId, card!.callId, "cancel");
    expect(lastToolResult()).toContain("Declined by the visitor");
    expect(await bookings()).toHaveLength(before);
  });

  it("shows no card for a party larger than the business takes: the model is told the arguments are invalid", async () => {
    const before = (await bookings()).length;
    const token = await w.token(shop.widgetKey);
    const { card } = await ask(token, "a big party of forty");
    expect(card).toBeUndefined();
    expect(lastToolResult()).toMatch(/partySize|maximum|invalid/i);
    expect(await bookings()).toHaveLength(before);
  });
});
