import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { listConversations } from "@/lib/db/queries/insights-list";
import { failedStatus, handshakeQuery, status, textMessage } from "../fixtures/channels/whatsapp/webhooks";
import { eventually, VERIFY_TOKEN } from "../support/channel-world";
import { PLATFORM } from "../support/chat-world";
import { startWhatsAppWorld, textOf, type WhatsAppWorld } from "../support/whatsapp-world";

// WhatsApp end to end: Meta's webhook (fixtures from Meta's reference, tests/fixtures/channels/whatsapp) →
// the route (key → signature → store → queue) → the inbound job → the widget's own chat turn against the fake
// model → the reply converted, split and sent to the fake Graph API, whose statuses come back by webhook.
// The replies' own rules (window, media, opt-out, retries, tools, splitting): channels-whatsapp-replies.test.ts.

const PREFIX = "021";
let c: WhatsAppWorld;
const fresh = () => c.fresh();
const sentTo = (to: string) => c.sentTo(to);

beforeAll(async () => {
  c = await startWhatsAppWorld(PREFIX);
});
afterAll(() => c?.close());
beforeEach(() => {
  c.graph.sent.length = 0;
  c.graph.reads.length = 0;
});

describe("the verification handshake", () => {
  it("echoes hub.challenge for the right verify token, with no signature expected", async () => {
    const { GET } = await import("@/app/api/channels/[channel]/[key]/route");
    const key = c.path.split("/").at(-1)!;
    const get = (q: URLSearchParams) =>
      GET(new Request(`${PLATFORM}${c.path}?${q}`), {
        params: Promise.resolve({ channel: "whatsapp", key }),
      });
    const ok = await get(handshakeQuery(VERIFY_TOKEN, "1158201444"));
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe("1158201444");
    const wrong = await get(handshakeQuery("not-the-token"));
    expect(wrong.status).toBe(403);
    expect(await wrong.text()).not.toContain("1158201444");
  });
});

describe("a signed text message", () => {
  it("is answered through the chat turn: WhatsApp formatting, one conversation on the whatsapp channel", async () => {
    const p = fresh();
    const res = await c.post(textMessage("What are your opening hours?", p));
    expect(res.status).toBe(200);
    const [sent] = await eventually(async () => {
      const s = sentTo(p.from);
      expect(s).toHaveLength(1);
      return s;
    });
    // Markdown bold becomes WhatsApp's *bold*; the first answer offers the starters as reply buttons.
    expect(textOf(sent!)).toBe("We open at *nine*.");
    expect(sent!.type).toBe("interactive");
    const rows = await eventually(async () => {
      const r = await c.rows();
      expect(r.outbound.find((o) => o.externalId === sent!.id)?.status).toBe("sent");
      return r;
    });
    const contact = rows.contacts.find((k) => k.address === p.from)!;
    const conv = rows.conversations.find((x) => x.id === contact.conversationId)!;
    expect(conv.channel).toBe("whatsapp");
    // The conversation knows a hash of the number, never the number.
    expect(conv.visitorId).not.toContain(p.from);
    expect(rows.messages.filter((m) => m.conversationId === conv.id).map((m) => [m.role, m.content])).toEqual(
      [
        ["user", "What are your opening hours?"],
        ["assistant", "We open at **nine**."],
      ],
    );
    // The admin's Conversations list filters by channel.
    const list = (channel: "web" | "whatsapp") =>
      c.w.db.forTenant(c.tenant.id, (tx) => listConversations(tx, c.tenant.id, { channel }));
    expect((await list("whatsapp")).items.map((i) => i.id)).toContain(conv.id);
    expect((await list("web")).items.map((i) => i.id)).not.toContain(conv.id);
    // The processed inbound row has forgotten the number and the text.
    const inbound = rows.inbound.find((i) => i.externalId === p.id)!;
    expect(inbound).toMatchObject({ status: "done", address: null, body: null });
  });

  it("stores delivered, read and failed statuses with Meta's code", async () => {
    const p = fresh();
    await c.post(textMessage("hello there", p));
    const [sent] = await eventually(async () => {
      const s = sentTo(p.from);
      expect(s).toHaveLength(1);
      return s;
    });
    await eventually(async () =>
      expect((await c.rows()).outbound.find((o) => o.externalId === sent!.id)?.status).toBe("sent"),
    );
    expect((await c.post(status(sent!.id, "read", { recipient: p.from }))).status).toBe(200);
    // A late "delivered" never moves a read message back.
    await c.post(status(sent!.id, "delivered", { recipient: p.from }));
    let row = (await c.rows()).outbound.find((o) => o.externalId === sent!.id)!;
    expect(row.status).toBe("read");
    await c.post(failedStatus(sent!.id, 131026, { recipient: p.from }));
    row = (await c.rows()).outbound.find((o) => o.externalId === sent!.id)!;
    expect(row).toMatchObject({ status: "failed", errorCode: "131026" });
  });
});

describe("what is refused or repeated", () => {
  it("a bad signature is 401 and nothing is stored", async () => {
    const before = await c.rows();
    const p = fresh();
    for (const secret of ["the-wrong-app-secret", null]) {
      const res = await c.post(textMessage("What are your opening hours?", p), { secret });
      expect(res.status).toBe(401);
    }
    const after = await c.rows();
    expect(after.inbound).toHaveLength(before.inbound.length);
    expect(after.messages).toHaveLength(before.messages.length);
  });

  it("an unknown key is 404 and nothing is stored", async () => {
    const before = await c.rows();
    const res = await c.post(textMessage("hello", fresh()), { key: "x".repeat(43) });
    expect(res.status).toBe(404);
    expect((await c.rows()).inbound).toHaveLength(before.inbound.length);
  });

  it("a retried delivery (same wamid) is answered once", async () => {
    const p = fresh();
    const body = textMessage("hello once", p);
    for (let i = 0; i < 3; i++) expect((await c.post(body)).status).toBe(200);
    await eventually(async () => expect(sentTo(p.from)).toHaveLength(1));
    const rows = await c.rows();
    expect(rows.inbound.filter((i) => i.externalId === p.id)).toHaveLength(1);
    const conv = rows.contacts.find((k) => k.address === p.from)!.conversationId;
    expect(rows.messages.filter((m) => m.conversationId === conv && m.role === "user")).toHaveLength(1);
  });

  it("messages that arrive out of order are answered in the order they were sent", async () => {
    const p = fresh();
    const t = p.timestamp - 60;
    // Meta does not promise order: here the later message comes first in the delivery.
    const later = textMessage("the second question", { id: `${p.id}b`, from: p.from, timestamp: t + 5 });
    const earlier = textMessage("the first question", { id: `${p.id}a`, from: p.from, timestamp: t });
    const both = structuredClone(later) as { entry: { changes: { value: { messages: unknown[] } }[] }[] };
    const first = (earlier as typeof both).entry[0]!.changes[0]!.value.messages[0];
    both.entry[0]!.changes[0]!.value.messages.push(first);
    expect((await c.post(both)).status).toBe(200);
    const sent = await eventually(async () => {
      const s = sentTo(p.from);
      expect(s).toHaveLength(2);
      return s;
    });
    expect(sent.map(textOf)).toEqual(["Answer one.", "Answer two."]);
    const rows = await c.rows();
    const conv = rows.contacts.find((k) => k.address === p.from)!.conversationId;
    expect(rows.messages.filter((m) => m.conversationId === conv).map((m) => m.content)).toEqual([
      "the first question",
      "Answer one.",
      "the second question",
      "Answer two.",
    ]);
  });
});
