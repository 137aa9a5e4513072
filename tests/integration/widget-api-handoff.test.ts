import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as chatPost } from "@/app/api/widget/[key]/chat/route";
import { POST as contactPost } from "@/app/api/widget/[key]/contact/route";
import { POST as feedbackPost } from "@/app/api/widget/[key]/feedback/route";
import { leads, messageFeedback, packConfigs } from "@/lib/db/schema";
import { LEAD_PER_VISITOR_PER_HOUR } from "@/lib/leads/limits";
import { DEFAULT_CONSENT } from "@/lib/tools/packs/request-human";
import { type ChatWorld, PLATFORM, readEvents, SITE, startChatWorld } from "../support/chat-world";

// The visitor's ways past the bot over HTTP: asking for a person (the request_human pack's form and the
// contact endpoint) and rating answers. The real guard, rate limits and database; the fake model.

let w: ChatWorld;
let shop: Awaited<ReturnType<ChatWorld["tenant"]>>;
let other: Awaited<ReturnType<ChatWorld["tenant"]>>;

beforeAll(async () => {
  w = await startChatWorld();
  shop = await w.tenant({ bot: { model: "fake-large", language: "es" } });
  other = await w.tenant();
  await w.db.forTenant(shop.id, (tx) =>
    tx.insert(packConfigs).values({
      tenantId: shop.id,
      packId: "request_human",
      enabled: true,
      config: { consentText: "Acepto que la tienda me contacte." },
    }),
  );
  w.fake.setRules([
    {
      match: "person",
      steps: [
        {
          type: "tool_calls",
          calls: [{ id: "call_h", name: "request_human", arguments: '{"topic":"catering"}' }],
        },
        { type: "text", text: "Leave your details in the form below." },
      ],
    },
    { match: "hello", steps: [{ type: "text", text: "Hello there." }] },
  ]);
});

afterAll(async () => {
  await w?.close();
});

function post(
  handler: typeof contactPost,
  path: "contact" | "feedback",
  key: string,
  body: unknown,
  opts: { token?: string; origin?: string | null } = {},
) {
  const headers = new Headers({ "content-type": "application/json" });
  const origin = opts.origin === undefined ? SITE : opts.origin;
  if (origin) headers.set("origin", origin);
  if (opts.token) headers.set("authorization", `Bearer ${opts.token}`);
  return handler(
    new Request(`${PLATFORM}/api/widget/${key}/${path}`, {
      method: "POST",
      headers,
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
    { params: Promise.resolve({ key }) },
  );
}
const contact = (key: string, body: unknown, opts?: { token?: string; origin?: string | null }) =>
  post(contactPost, "contact", key, body, opts);
const feedback = (key: string, body: unknown, opts?: { token?: string; origin?: string | null }) =>
  post(feedbackPost as typeof contactPost, "feedback", key, body, opts);

async function chat(key: string, token: string, message: string, conversationId?: string) {
  const res = await chatPost(w.chatRequest(key, { message, conversationId, lang: "es" }, { token }), {
    params: Promise.resolve({ key }),
  });
  expect(res.status).toBe(200);
  const events = await readEvents(res);
  const start = events.find((e) => e.event === "start")!.data as { conversationId: string };
  const done = events.find((e) => e.event === "done")?.data as { messageId: string } | undefined;
  return { events, conversationId: start.conversationId, answerId: done?.messageId ?? "" };
}

const leadRows = (tenantId: string) => w.db.forTenant(tenantId, (tx) => tx.select().from(leads));
const ratingRows = (tenantId: string) => w.db.forTenant(tenantId, (tx) => tx.select().from(messageFeedback));

describe("talk to a person", () => {
  let token: string;
  let conversationId: string;

  it("the assistant's request_human call opens the form (a handoff event) and puts a request in the Inbox", async () => {
    token = await w.token(shop.widgetKey);
    const turn = await chat(shop.widgetKey, token, "Can I talk to a person about catering?");
    conversationId = turn.conversationId;
    expect(turn.events.map((e) => e.event)).toContain("handoff");
    const handoff = turn.events.findIndex((e) => e.event === "handoff");
    expect(handoff).toBeLessThan(turn.events.findIndex((e) => e.event === "done"));
    const rows = await leadRows(shop.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ kind: "handoff", source: "assistant", conversationId, email: "" });
  });

  it("201 with a confirmation in the visitor's language; the details complete that request", async () => {
    const res = await contact(
      shop.widgetKey,
      {
        conversationId,
        name: " Ana ",
        email: "ana@example.org",
        message: "We need food for 40 people.",
        consent: true,
        source: "assistant",
        lang: "es",
      },
      { token },
    );
    expect(res.status).toBe(201);
    expect(res.headers.get("access-control-allow-origin")).toBe(SITE);
    const body = (await res.json()) as { id: string; message: string };
    expect(body.message).toMatch(/^¡Gracias!/);
    const rows = await leadRows(shop.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      id: body.id,
      kind: "lead",
      name: "Ana",
      email: "ana@example.org",
      phone: "",
      status: "new",
      conversationId,
      consentText: "Acepto que la tienda me contacte.",
    });
  });

  it("the model never sees the contact details", async () => {
    w.fake.requests.length = 0;
    await chat(shop.widgetKey, token, "hello again", conversationId);
    const sent = JSON.stringify(w.fake.requests.map((r) => r.body));
    expect(sent).toContain("hello again");
    expect(sent).not.toContain("ana@example.org");
    expect(sent).not.toContain("food for 40");
  });

  it("400 with the problem per field, worded in the visitor's language", async () => {
    // Five refusals: exactly the visitor's hourly allowance (invalid requests count too).
    const t = await w.token(shop.widgetKey);
    const cases: [Record<string, unknown>, string, string][] = [
      [{ message: "hi", consent: true }, "email", "reach_needed"],
      [{ email: "not-an-address", message: "hi", consent: true }, "email", "email_invalid"],
      [{ phone: "12", message: "hi", consent: true }, "phone", "phone_invalid"],
      [{ phone: "+34 600 000 000", message: "  ", consent: true }, "message", "message_needed"],
      [{ phone: "+34 600 000 000", message: "hi" }, "consent", "consent_needed"],
    ];
    for (const [body, field, code] of cases) {
      const res = await contact(shop.widgetKey, { ...body, lang: "es" }, { token: t });
      expect(res.status, JSON.stringify(body)).toBe(400);
      const err = (await res.json()) as { error: { message: string; fieldErrors: Record<string, string[]> } };
      expect(err.error.fieldErrors[field]).toEqual([code]);
      if (code === "reach_needed")
        expect(err.error.message).toBe("Indica un correo electrónico o un teléfono.");
    }
    expect(await leadRows(shop.id)).toHaveLength(1);
  });

  it("a phone alone is enough; without a saved consent text the default one is stored", async () => {
    const t = await w.token(other.widgetKey);
    const res = await contact(
      other.widgetKey,
      { phone: "+1 (555) 010-0199", message: "Call me back", consent: true },
      { token: t },
    );
    expect(res.status).toBe(201);
    const [row] = await leadRows(other.id);
    expect(row).toMatchObject({
      phone: "+1 (555) 010-0199",
      consentText: DEFAULT_CONSENT,
      conversationId: null,
    });
  });

  it("refuses a missing token, a foreign origin, another tenant's token and another visitor's conversation", async () => {
    const ok = { email: "x@example.org", message: "hi", consent: true };
    expect((await contact(shop.widgetKey, ok)).status).toBe(401);
    const t = await w.token(shop.widgetKey);
    expect((await contact(shop.widgetKey, ok, { token: t, origin: "https://evil.example" })).status).toBe(
      403,
    );
    const foreign = await w.token(other.widgetKey);
    expect((await contact(shop.widgetKey, ok, { token: foreign })).status).toBe(401);
    // Another visitor of the same shop naming the first visitor's conversation.
    expect((await contact(shop.widgetKey, { ...ok, conversationId }, { token: t })).status).toBe(404);
    expect((await contact(shop.widgetKey, "{not json", { token: t })).status).toBe(400);
    expect(await leadRows(shop.id)).toHaveLength(1);
  });

  it(`limits a visitor to ${LEAD_PER_VISITOR_PER_HOUR} requests an hour (429 with Retry-After)`, async () => {
    const t = await w.token(shop.widgetKey);
    const before = (await leadRows(shop.id)).length;
    for (let i = 0; i < LEAD_PER_VISITOR_PER_HOUR; i++) {
      const res = await contact(
        shop.widgetKey,
        { email: `v${i}@example.org`, message: "hi", consent: true },
        { token: t },
      );
      expect(res.status).toBe(201);
    }
    const res = await contact(
      shop.widgetKey,
      { email: "late@example.org", message: "hi", consent: true },
      { token: t },
    );
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await leadRows(shop.id)).length).toBe(before + LEAD_PER_VISITOR_PER_HOUR);
  });
});

describe("answer ratings", () => {
  let token: string;
  let answerId: string;
  let conversationId: string;

  it("204 for the visitor's own answer; rating again replaces the rating and the comment", async () => {
    token = await w.token(shop.widgetKey);
    ({ answerId, conversationId } = await chat(shop.widgetKey, token, "hello"));
    expect(answerId).toMatch(/^[0-9a-f-]{36}$/);
    const down = await feedback(
      shop.widgetKey,
      { messageId: answerId, rating: "down", comment: "Too\nvague" },
      { token },
    );
    expect(down.status).toBe(204);
    expect(await ratingRows(shop.id)).toEqual([
      expect.objectContaining({ messageId: answerId, conversationId, rating: "down", comment: "Too vague" }),
    ]);
    const up = await feedback(
      shop.widgetKey,
      { messageId: answerId, rating: "up", comment: "ignored" },
      { token },
    );
    expect(up.status).toBe(204);
    expect(await ratingRows(shop.id)).toEqual([
      expect.objectContaining({ messageId: answerId, rating: "up", comment: "" }),
    ]);
  });

  it("404 for another visitor's answer, a visitor message, or another tenant's answer", async () => {
    const stranger = await w.token(shop.widgetKey);
    expect(
      (await feedback(shop.widgetKey, { messageId: answerId, rating: "down" }, { token: stranger })).status,
    ).toBe(404);
    const rows = await w.rows(shop.id);
    const question = rows.messages.find((m) => m.conversationId === conversationId && m.role === "user")!;
    expect(
      (await feedback(shop.widgetKey, { messageId: question.id, rating: "down" }, { token })).status,
    ).toBe(404);
    const foreignToken = await w.token(other.widgetKey);
    expect(
      (await feedback(other.widgetKey, { messageId: answerId, rating: "down" }, { token: foreignToken }))
        .status,
    ).toBe(404);
    expect(await ratingRows(shop.id)).toEqual([expect.objectContaining({ rating: "up" })]);
    expect(await ratingRows(other.id)).toEqual([]);
  });

  it("400 for a bad rating, 401 without a token, 403 from a foreign origin", async () => {
    expect((await feedback(shop.widgetKey, { messageId: answerId, rating: "meh" }, { token })).status).toBe(
      400,
    );
    expect((await feedback(shop.widgetKey, { messageId: "nope", rating: "up" }, { token })).status).toBe(400);
    expect(
      (
        await feedback(
          shop.widgetKey,
          { messageId: answerId, rating: "down", comment: "x".repeat(301) },
          { token },
        )
      ).status,
    ).toBe(400);
    expect((await feedback(shop.widgetKey, { messageId: answerId, rating: "down" })).status).toBe(401);
    expect(
      (
        await feedback(
          shop.widgetKey,
          { messageId: answerId, rating: "down" },
          { token, origin: "https://evil.example" },
        )
      ).status,
    ).toBe(403);
    expect(await ratingRows(shop.id)).toEqual([expect.objectContaining({ rating: "up" })]);
  });
});
