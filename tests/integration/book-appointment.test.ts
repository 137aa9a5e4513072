import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packConfigs, pendingToolCalls } from "@/lib/db/schema";
import { createLogger } from "@/lib/log";
import { sealSecret } from "@/lib/security/secrets";
import type { ChatEvent } from "@/shared/chat-events";
import {
  type ChatWorld,
  PLATFORM,
  pemFile,
  readEvents,
  SITE,
  startChatWorld,
  textOf,
} from "../support/chat-world";
import { type FakeCalApi, startFakeCalApi } from "../support/fake-cal-api";

// Issue 41 item 3: appointments in the business's Cal.com calendar. The model lists free times (a read, no
// card), then books one: the booking goes to Cal.com only after the visitor's Confirm, once, with the call's
// Idempotency-Key; Cancel sends nothing; a time taken meanwhile and a refused key come back in words; the
// Cal.com key never reaches the model, a log line or a stored result.

let w: ChatWorld;
let cal: FakeCalApi;
type Tenant = Awaited<ReturnType<ChatWorld["tenant"]>>;
let clinic: Tenant;
let wrongKey: Tenant;
let elsewhere: Tenant;
const lines: string[] = [];

// Europe/Rome is UTC+2 in September 2050: 09:00, 09:30 and 14:00 local.
const FREE = ["2050-09-05T07:00:00Z", "2050-09-05T07:30:00Z", "2050-09-06T12:00:00Z"];
const VISITOR = { name: "Ana Rossi", email: "ana@example.com" };

async function enableCal(t: Tenant, key: string, apiBaseUrl = cal.baseUrl) {
  for (const packId of ["find_appointment_slots", "book_appointment"]) {
    await w.db.forTenant(t.id, (tx) =>
      tx.insert(packConfigs).values({
        tenantId: t.id,
        packId,
        enabled: true,
        config: { eventTypeId: cal.eventTypeId, timeZone: "Europe/Rome", apiBaseUrl },
        secrets: { apiKey: sealSecret(key, { tenantId: t.id, packId, key: "apiKey" }) },
      }),
    );
  }
}

const book = (time: string, id: string) => ({
  type: "tool_calls" as const,
  calls: [
    { id, name: "book_appointment", arguments: JSON.stringify({ date: "2050-09-05", time, ...VISITOR }) },
  ],
});

beforeAll(async () => {
  cal = await startFakeCalApi({ free: FREE });
  w = await startChatWorld({
    MICHI_FETCH_ALLOW_HOSTS: cal.host,
    MICHI_FETCH_EXTRA_CA: pemFile(cal.caPem),
    MICHI_LOG_LEVEL: "debug",
  });
  // Every line the server would write, to look for the key in.
  (globalThis as Record<string, unknown>).__michiLog = createLogger(
    { write: (line: string) => void lines.push(line) },
    "debug",
  );
  clinic = await w.tenant({ bot: { model: "fake-large" } });
  wrongKey = await w.tenant({ bot: { model: "fake-large" } });
  await enableCal(clinic, cal.apiKey);
  await enableCal(wrongKey, "cal_live_not_the_right_key");
  elsewhere = await w.tenant({ bot: { model: "fake-large" } });
  await enableCal(elsewhere, cal.apiKey, "https://cal-mirror.example");
  w.fake.setRules([
    {
      match: "free times",
      steps: [
        {
          type: "tool_calls",
          calls: [
            { id: "call_slots", name: "find_appointment_slots", arguments: '{"from":"2050-09-05","days":2}' },
          ],
        },
        { type: "text", text: "Free: {{tool}}" },
      ],
    },
    {
      match: "book nine thirty",
      steps: [book("09:30", "call_930"), { type: "text", text: "Result: {{tool}}" }],
    },
    { match: "book nine", steps: [book("09:00", "call_900"), { type: "text", text: "Result: {{tool}}" }] },
    { match: "book two", steps: [book("14:00", "call_1400"), { type: "text", text: "Result: {{tool}}" }] },
  ]);
});

afterAll(async () => {
  (globalThis as Record<string, unknown>).__michiLog = undefined;
  await w?.close();
  await cal?.close();
});

const posts = () => cal.requests.filter((r) => r.method === "POST");

async function ask(t: Tenant, token: string, message: string) {
  const res = await w.chat(t.widgetKey, { message, pageUrl: `${SITE}/` }, { token });
  expect(res.status).toBe(200);
  const events = await readEvents(res);
  const start = events.find((e) => e.event === "start")!.data as { conversationId: string };
  const card = events.find((e) => e.event === "confirm")?.data as
    | Extract<ChatEvent, { type: "confirm" }>["data"]
    | undefined;
  return { events, conversationId: start.conversationId, card };
}

async function decide(t: Tenant, token: string, conversationId: string, callId: string, decision: string) {
  const { POST } = await import("@/app/api/widget/[key]/conversations/[id]/confirm/route");
  const req = new Request(`${PLATFORM}/api/widget/${t.widgetKey}/conversations/${conversationId}/confirm`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: SITE, authorization: `Bearer ${token}` },
    body: JSON.stringify({ callId, decision, lang: "en" }),
  });
  const res = await POST(req, { params: Promise.resolve({ key: t.widgetKey, id: conversationId }) });
  expect(res.status).toBe(200);
  return textOf(await readEvents(res));
}

describe("Cal.com appointments through the real turn", () => {
  it("lists the free times as a short list in the business's time zone, with no card", async () => {
    const token = await w.token(clinic.widgetKey);
    const { events, card } = await ask(clinic, token, "any free times next week?");
    expect(card).toBeUndefined();
    const text = textOf(events);
    expect(text).toContain('"timeZone":"Europe/Rome"');
    expect(text).toContain('{"date":"2050-09-05","times":["09:00","09:30"]}');
    expect(text).toContain('{"date":"2050-09-06","times":["14:00"]}');
    const get = cal.requests.find((r) => r.path === "/v2/slots")!;
    expect(get.headers["cal-api-version"]).toBe("2024-09-04");
    expect(Object.fromEntries(get.query)).toEqual({
      eventTypeId: String(cal.eventTypeId),
      start: "2050-09-05",
      end: "2050-09-06",
      timeZone: "Europe/Rome",
    });
    expect(posts()).toHaveLength(0);
  });

  it("books only after Confirm, once, with the stored key, and tells the model status, start and uid", async () => {
    const token = await w.token(clinic.widgetKey);
    const { card, conversationId } = await ask(clinic, token, "please book nine o'clock");
    expect(card).toMatchObject({
      title: "Book this appointment?",
      fields: [
        { label: "Date", value: "2050-09-05" },
        { label: "Time", value: "09:00" },
        { label: "Name", value: "Ana Rossi" },
        { label: "E-mail", value: "ana@example.com" },
      ],
    });
    expect(posts()).toHaveLength(0);

    const text = await decide(clinic, token, conversationId, card!.callId, "confirm");
    expect(posts()).toHaveLength(1);
    const sent = posts()[0]!;
    const row = (
      await w.db.forTenant(clinic.id, (tx) =>
        tx.select().from(pendingToolCalls).where(eq(pendingToolCalls.id, card!.callId)),
      )
    )[0]!;
    expect(sent.headers["idempotency-key"]).toBe(row.idempotencyKey);
    expect(sent.headers["cal-api-version"]).toBe("2024-08-13");
    expect(sent.body).toEqual({
      start: "2050-09-05T07:00:00.000Z",
      eventTypeId: cal.eventTypeId,
      attendee: { ...VISITOR, timeZone: "Europe/Rome" },
    });
    expect(cal.bookings).toHaveLength(1);
    expect(text).toBe(
      `Result: {"status":"accepted","start":"2050-09-05T07:00:00.000Z","uid":"${cal.bookings[0]!.uid}"}`,
    );
    // A second tap sends nothing more.
    const { POST } = await import("@/app/api/widget/[key]/conversations/[id]/confirm/route");
    const again = await POST(
      new Request(`${PLATFORM}/api/widget/${clinic.widgetKey}/conversations/${conversationId}/confirm`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: SITE, authorization: `Bearer ${token}` },
        body: JSON.stringify({ callId: card!.callId, decision: "confirm", lang: "en" }),
      }),
      { params: Promise.resolve({ key: clinic.widgetKey, id: conversationId }) },
    );
    expect(again.status).toBe(409);
    expect(posts()).toHaveLength(1);
  });

  it("sends nothing on Cancel", async () => {
    const before = posts().length;
    const token = await w.token(clinic.widgetKey);
    const { card, conversationId } = await ask(clinic, token, "book two in the afternoon");
    await decide(clinic, token, conversationId, card!.callId, "cancel");
    expect(posts()).toHaveLength(before);
  });

  it("answers a time taken meanwhile in words", async () => {
    const token = await w.token(clinic.widgetKey);
    const { card, conversationId } = await ask(clinic, token, "book nine thirty");
    cal.take("2050-09-05T07:30:00Z");
    const text = await decide(clinic, token, conversationId, card!.callId, "confirm");
    expect(text).toContain("That time is no longer free");
    expect(cal.bookings.map((b) => b.start)).not.toContain("2050-09-05T07:30:00.000Z");
  });

  it("says a refused key in words", async () => {
    const token = await w.token(wrongKey.widgetKey);
    const { events } = await ask(wrongKey, token, "free times please");
    expect(textOf(events)).toContain("The Cal.com key was refused");
  });

  it("sends the key nowhere but Cal.com: an API address off the operator's allowlist is refused", async () => {
    const before = cal.requests.length;
    const token = await w.token(elsewhere.widgetKey);
    const { events } = await ask(elsewhere, token, "free times on Monday");
    expect(textOf(events)).toContain("The Cal.com API address in the settings is not allowed");
    expect(cal.requests).toHaveLength(before);
  });

  it("never lets the Cal.com key reach the model, a log line or a stored result", async () => {
    const calls = cal.requests.filter((r) => r.headers.authorization === `Bearer ${cal.apiKey}`);
    expect(calls.length).toBeGreaterThan(0);
    expect(JSON.stringify(w.fake.requests.map((r) => r.body))).not.toContain(cal.apiKey);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join("\n")).not.toContain(cal.apiKey);
    expect(lines.join("\n")).not.toContain("cal_live_not_the_right_key");
    const stored = JSON.stringify([await w.rows(clinic.id), await w.rows(wrongKey.id)]);
    expect(stored).not.toContain(cal.apiKey);
    expect(stored).not.toContain("cal_live_not_the_right_key");
    expect(stored).not.toContain("host-private@clinic.example");
  });
});
