import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { buttonTitle, createWhatsAppClient } from "@/lib/channels/whatsapp/api";
import { type ChannelWire, createChannelWire } from "@/lib/channels/wire";
import { type FakeGraphApi, startFakeGraphApi } from "../support/fake-graph-api";

// The WhatsApp client against a fake Graph API on loopback: what reaches Meta is what Meta accepts, and every
// refusal comes back as a code, a sentence an admin can act on, and whether trying again can help.

let graph: FakeGraphApi;
let wire: ChannelWire;

beforeAll(async () => {
  graph = await startFakeGraphApi();
  wire = createChannelWire({ allowHosts: [graph.host], extraCaPem: graph.caPem });
});
afterAll(async () => {
  await wire.close();
  await graph.close();
});
beforeEach(() => {
  graph.requests.length = 0;
  graph.sent.length = 0;
  graph.reads.length = 0;
});

const client = (o: { token?: string; phone?: string } = {}) =>
  createWhatsAppClient({
    phoneNumberId: o.phone ?? graph.phoneNumberId,
    accessToken: o.token ?? graph.accessToken,
    baseUrl: graph.baseUrl,
    wire,
  });

describe("WhatsApp client: sending", () => {
  it("sends a text with the token in the Authorization header only, and answers the wamid", async () => {
    const r = await client().sendText("15550199876", "Hello *there*");
    expect(r).toEqual({ ok: true, id: expect.stringMatching(/^wamid\./) });
    const req = graph.requests[0]!;
    expect(req.path).toBe(`/v23.0/${graph.phoneNumberId}/messages`);
    expect(req.headers.authorization).toBe(`Bearer ${graph.accessToken}`);
    expect(req.path + req.query.toString()).not.toContain(graph.accessToken);
    expect(req.body).toMatchObject({
      messaging_product: "whatsapp",
      recipient_type: "individual",
      to: "15550199876",
      type: "text",
      text: { preview_url: false, body: "Hello *there*" },
    });
  });

  it("sends up to three reply buttons, shortening titles to Meta's 20 characters", async () => {
    const r = await client().sendButtons("15550199876", "What would you like to know?", [
      { id: "s1", title: "Opening hours" },
      { id: "s2", title: "Where can I park my car nearby?" },
      { id: "s3", title: "Supercalifragilisticexpialidocious" },
    ]);
    expect(r.ok).toBe(true);
    const buttons = (
      graph.sent[0]!.body.interactive as { action: { buttons: { reply: { id: string; title: string } }[] } }
    ).action.buttons;
    expect(buttons.map((b) => b.reply)).toEqual([
      { id: "s1", title: "Opening hours" },
      { id: "s2", title: "Where can I park my…" },
      { id: "s3", title: "Supercalifragilisti…" },
    ]);
    for (const b of buttons) expect(b.reply.title.length).toBeLessThanOrEqual(20);
  });

  it("numbers titles that shortening made equal and drops a repeated id, so Meta does not refuse them", async () => {
    const r = await client().sendButtons("15550199876", "Which day?", [
      { id: "mon", title: "What are your opening hours on Monday?" },
      { id: "sun", title: "What are your opening hours on Sunday?" },
      { id: "mon", title: "Monday again" },
    ]);
    expect(r.ok).toBe(true);
    const buttons = (
      graph.sent[0]!.body.interactive as { action: { buttons: { reply: { id: string; title: string } }[] } }
    ).action.buttons;
    expect(buttons.map((b) => b.reply)).toEqual([
      { id: "mon", title: "What are your…" },
      { id: "sun", title: "What are your… 2" },
    ]);
  });

  it("refuses four buttons or a body over 1,024 characters before calling Meta", async () => {
    const four = [1, 2, 3, 4].map((i) => ({ id: `s${i}`, title: `T${i}` }));
    expect(await client().sendButtons("15550199876", "Pick", four)).toMatchObject({
      ok: false,
      code: "invalid",
      retryable: false,
    });
    expect(await client().sendButtons("15550199876", "x".repeat(1025), four.slice(0, 1))).toMatchObject({
      ok: false,
      code: "invalid",
    });
    expect(graph.requests).toHaveLength(0);
  });

  it("is refused by the fake as Meta refuses it when a request breaks the button limits anyway", async () => {
    // Straight to the fake, past the client's own checks: the fake must not accept what Meta would not.
    const send = (buttons: { id: string; title: string }[], body = "Pick one") =>
      wire.send("POST", `${graph.baseUrl}/${graph.phoneNumberId}/messages`, {
        bearer: graph.accessToken,
        json: {
          messaging_product: "whatsapp",
          to: "15550199876",
          type: "interactive",
          interactive: {
            type: "button",
            body: { text: body },
            action: { buttons: buttons.map((reply) => ({ type: "reply", reply })) },
          },
        },
      });
    const b = (i: number, title = `T${i}`) => ({ id: `s${i}`, title });
    for (const [buttons, body] of [
      [[b(1), b(2), b(3), b(4)], "Pick one"],
      [[b(1, "Twenty-one characters")], "Pick one"],
      [[b(1), b(2, "T1")], "Pick one"],
      [[b(1)], "x".repeat(1025)],
    ] as const) {
      const a = await send([...buttons], body);
      expect(a).toMatchObject({ status: 400, json: { error: { code: 131009 } } });
    }
    expect(await send([b(1), b(2), b(3)])).toMatchObject({ status: 200 });
    expect(graph.sent).toHaveLength(1);
  });

  it("marks a message read, with the typing indicator when asked", async () => {
    expect(await client().markRead("wamid.IN1")).toEqual({ ok: true, id: "wamid.IN1" });
    expect(await client().markRead("wamid.IN2", { typing: true })).toEqual({ ok: true, id: "wamid.IN2" });
    expect(graph.reads).toEqual([
      { messageId: "wamid.IN1", typing: false },
      { messageId: "wamid.IN2", typing: true },
    ]);
    expect(graph.requests[1]!.body).toMatchObject({
      status: "read",
      message_id: "wamid.IN2",
      typing_indicator: { type: "text" },
    });
  });
});

describe("WhatsApp client: Meta's refusals", () => {
  it("131047 outside the 24-hour window: not retryable, says so in words", async () => {
    graph.failNext("re-engagement");
    const r = await client().sendText("15550199876", "late answer");
    expect(r).toMatchObject({ ok: false, code: "131047", retryable: false });
    expect(!r.ok && r.message).toMatch(/24 hours/);
  });

  it("131026 undeliverable and 10 missing permission are final", async () => {
    graph.failNext("undeliverable");
    expect(await client().sendText("15550199876", "x")).toMatchObject({
      ok: false,
      code: "131026",
      retryable: false,
    });
    graph.failNext("no-permission");
    const r = await client().sendText("15550199876", "x");
    expect(r).toMatchObject({ ok: false, code: "10", retryable: false });
    expect(!r.ok && r.message).toMatch(/permission/);
  });

  it("throughput limits and Meta's temporary failures are retryable", async () => {
    graph.failNext("rate-limit");
    expect(await client().sendText("15550199876", "x")).toMatchObject({
      ok: false,
      code: "130429",
      retryable: true,
    });
    graph.failNext("server-error");
    expect(await client().sendText("15550199876", "x")).toMatchObject({
      ok: false,
      code: "131000",
      retryable: true,
    });
    expect(await client().sendText("15550199876", "x")).toMatchObject({ ok: true });
  });

  it("a closed window stays closed for that customer until they write again", async () => {
    graph.closeWindow("15550111111");
    expect(await client().sendText("15550111111", "x")).toMatchObject({ ok: false, code: "131047" });
    expect(await client().sendText("15550199876", "x")).toMatchObject({ ok: true });
    graph.openWindow("15550111111");
    expect(await client().sendText("15550111111", "x")).toMatchObject({ ok: true });
  });

  it("an over-long text is refused by Meta as a parameter error, not retried", async () => {
    expect(await client().sendText("15550199876", "x".repeat(4097))).toMatchObject({
      ok: false,
      code: "100",
      retryable: false,
    });
  });
});

describe("WhatsApp client: checkConnection", () => {
  it("reads the number's display name when token and id are right", async () => {
    expect(await client().checkConnection()).toEqual({
      ok: true,
      id: graph.phoneNumberId,
      displayPhoneNumber: "+1 555-010-1234",
      verifiedName: "Michi Test Shop",
    });
  });

  it("names an expired token (190 / 463), a wrong token (190), a wrong phone number id (100 / 33)", async () => {
    graph.failNext("expired-token");
    const expired = await client().checkConnection();
    expect(expired).toMatchObject({ ok: false, code: "190", retryable: false });
    expect(!expired.ok && expired.message).toMatch(/has expired/);
    const wrongToken = await client({ token: "EAAG-revoked" }).checkConnection();
    expect(wrongToken).toMatchObject({ ok: false, code: "190", retryable: false });
    expect(!wrongToken.ok && wrongToken.message).toMatch(/expired or was revoked/);
    const wrongId = await client({ phone: "999999999999999" }).checkConnection();
    expect(wrongId).toMatchObject({ ok: false, code: "100", retryable: false });
    expect(!wrongId.ok && wrongId.message).toMatch(/phone number id/);
  });

  it("names a missing permission", async () => {
    graph.failNext("no-permission");
    const r = await client().checkConnection();
    expect(r).toMatchObject({ ok: false, code: "10" });
    expect(!r.ok && r.message).toMatch(/whatsapp_business_messaging/);
  });

  it("a server that cannot be reached is a retryable network failure, without the token in the message", async () => {
    const dead = await startFakeGraphApi();
    const deadWire = createChannelWire({ allowHosts: [dead.host], extraCaPem: dead.caPem, timeoutMs: 5000 });
    await dead.close();
    const r = await createWhatsAppClient({
      phoneNumberId: "1",
      accessToken: "EAAG-secret",
      baseUrl: dead.baseUrl,
      wire: deadWire,
    }).sendText("15550199876", "x");
    await deadWire.close();
    expect(r).toMatchObject({ ok: false, code: "network", retryable: true });
    expect(JSON.stringify(r)).not.toContain("EAAG-secret");
  });
});

describe("WhatsApp client: where it may call", () => {
  it("refuses a base URL other than graph.facebook.com unless the allowlist names it", () => {
    const bare = createChannelWire({});
    expect(() =>
      createWhatsAppClient({ phoneNumberId: "1", accessToken: "t", baseUrl: graph.baseUrl, wire: bare }),
    ).toThrow(/graph\.facebook\.com/);
    expect(() =>
      createWhatsAppClient({
        phoneNumberId: "1",
        accessToken: "t",
        baseUrl: "https://graph.facebook.com.evil.example/v23.0",
        wire: bare,
      }),
    ).toThrow();
    expect(() =>
      createWhatsAppClient({
        phoneNumberId: "1",
        accessToken: "t",
        baseUrl: "http://graph.facebook.com/v23.0",
        wire: bare,
      }),
    ).toThrow();
    expect(() => createWhatsAppClient({ phoneNumberId: "1", accessToken: "t", wire: bare })).not.toThrow();
    return bare.close();
  });

  it("refuses graph.facebook.com when its name resolves to a private address (the guard checks on connect)", async () => {
    const rebound = createChannelWire({ lookup: async () => [{ address: "127.0.0.1", family: 4 }] });
    const r = await createWhatsAppClient({ phoneNumberId: "1", accessToken: "t", wire: rebound }).sendText(
      "15550199876",
      "x",
    );
    await rebound.close();
    expect(r).toMatchObject({ ok: false, code: "blocked", retryable: false });
  });

  it("keeps a phone number id from changing the path", async () => {
    await client({ phone: "../../me" }).sendText("15550199876", "x");
    expect(graph.requests[0]!.path).toBe("/v23.0/..%2F..%2Fme/messages");
  });
});

describe("buttonTitle", () => {
  it("keeps short titles, cuts long ones at a word with an ellipsis, never over 20", () => {
    expect(buttonTitle("  Opening   hours ")).toBe("Opening hours");
    expect(buttonTitle("x".repeat(20))).toBe("x".repeat(20));
    for (const t of ["Where can I park my car nearby?", "a".repeat(50), "Do you have vegan options?"]) {
      expect(buttonTitle(t).length).toBeLessThanOrEqual(20);
      expect(buttonTitle(t).endsWith("…")).toBe(true);
    }
  });
});
