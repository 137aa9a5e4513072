import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { platformPacks } from "@/lib/chat/packs";
import { listConversations } from "@/lib/db/queries/insights-list";
import { channelConnections } from "@/lib/db/schema";
import type { ToolPack } from "@/lib/tools/contract";
import type { EnabledPack } from "@/lib/tools/runtime";
import {
  failedStatus,
  handshakeQuery,
  imageMessage,
  status,
  textMessage,
} from "../fixtures/channels/whatsapp/webhooks";
import { type ChannelWorld, eventually, startChannelWorld, VERIFY_TOKEN } from "../support/channel-world";
import { PLATFORM } from "../support/chat-world";

// WhatsApp end to end: Meta's webhook (fixtures from Meta's reference, tests/fixtures/channels/whatsapp) →
// the route (key → signature → store → queue) → the inbound job → the widget's own chat turn against the fake
// model → the reply converted, split and sent to the fake Graph API, whose statuses come back by webhook.

const info: ToolPack = {
  id: "get_business_info",
  label: "Checking our details",
  definition: {
    type: "function",
    function: {
      name: "get_business_info",
      description: "Opening hours (test)",
      parameters: { type: "object", properties: { topic: { type: "string" } }, required: ["topic"] },
    },
  },
  configFields: [],
  run: async () => ({ answer: "9 to 5" }),
};
const enabled: EnabledPack[] = [{ pack: info, config: {}, definition: info.definition }];

let c: ChannelWorld;
let seq = 0;
/** A fresh wamid and a fresh customer per test, so tests never see each other's messages. */
const fresh = () => {
  seq++;
  return {
    id: `wamid.TEST${seq}${Math.random().toString(36).slice(2, 8)}`,
    from: `1555020${String(seq).padStart(4, "0")}`,
    // Meta stamps the time the person sent it: now, so WhatsApp's 24-hour window is open.
    timestamp: Math.floor(Date.now() / 1000),
  };
};

beforeAll(async () => {
  c = await startChannelWorld({
    packs: { ...platformPacks, loadEnabled: async () => enabled },
    bot: { language: "en", starters: ["What are your opening hours?", "Where are you?"] },
  });
  c.w.fake.setRules([
    { match: "opening", steps: [{ type: "text", text: "We open at **nine**." }] },
    { match: "first", steps: [{ type: "text", text: "Answer one." }] },
    { match: "second", steps: [{ type: "text", text: "Answer two." }] },
    {
      match: "long",
      steps: [{ type: "text", text: `${"A sentence of the long answer. ".repeat(200)}The end.` }],
    },
    {
      match: "hours",
      steps: [
        {
          type: "tool_calls",
          calls: [{ id: "c1", name: "get_business_info", arguments: '{"topic":"hours"}' }],
        },
        { type: "text", text: "From {{tool.answer}}." },
      ],
    },
    { match: "", steps: [{ type: "text", text: "Hello." }] },
  ]);
});
afterAll(() => c?.close());
beforeEach(() => {
  c.graph.sent.length = 0;
  c.graph.reads.length = 0;
});

/** The messages sent to a person, as stored. */
const outboundOf = async (from: string) => {
  const r = await c.rows();
  const conv = r.contacts.find((k) => k.address === from)?.conversationId;
  return r.outbound.filter((o) => o.conversationId === conv);
};
const sentTo = (to: string) => c.graph.sent.filter((s) => s.to === to);
const textOf = (s: { body: Record<string, unknown> }) =>
  (s.body.text as { body?: string } | undefined)?.body ??
  (s.body.interactive as { body?: { text?: string } } | undefined)?.body?.text;

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

describe("the 24-hour window, media, opt-out, failures and tools", () => {
  it("outside the 24-hour window nothing is sent and the connection says why", async () => {
    const p = fresh();
    // Delivered late (Meta retried for more than a day): the person wrote 25 hours ago.
    await c.post(textMessage("hello from yesterday", { ...p, timestamp: p.timestamp - 25 * 3600 }));
    await eventually(async () =>
      expect(await outboundOf(p.from)).toMatchObject([{ status: "outside_window", errorCode: "131047" }]),
    );
    expect(sentTo(p.from)).toHaveLength(0);
    const [conn] = await c.w.db.forTenant(c.tenant.id, (tx) => tx.select().from(channelConnections));
    expect(conn!.lastError).toContain("24 hours");
  });

  it("a picture is answered politely without a turn", async () => {
    const p = fresh();
    c.w.fake.requests.length = 0;
    await c.post(imageMessage("look at this", p));
    const [sent] = await eventually(async () => {
      const s = sentTo(p.from);
      expect(s).toHaveLength(1);
      return s;
    });
    expect(textOf(sent!)).toBe("Sorry, I can only read text messages. Could you write your question?");
    expect(c.w.fake.requests).toHaveLength(0);
  });

  it("STOP is honoured: confirmed once, then nothing is answered until START", async () => {
    const p = fresh();
    const at = (n: number) => ({ id: `${p.id}-${n}`, from: p.from, timestamp: p.timestamp + n });
    await c.post(textMessage("STOP", at(0)));
    await eventually(async () => expect(sentTo(p.from)).toHaveLength(1));
    expect(textOf(sentTo(p.from)[0]!)).toContain("START");
    await c.post(textMessage("hello?", at(1)));
    await eventually(async () =>
      expect((await c.rows()).inbound.find((i) => i.externalId === `${p.id}-1`)?.status).toBe("skipped"),
    );
    expect(sentTo(p.from)).toHaveLength(1);
    await c.post(textMessage("start", at(2)));
    await eventually(async () => expect(sentTo(p.from)).toHaveLength(2));
    expect(textOf(sentTo(p.from)[1]!)).toBe("Welcome back! How can I help?");
  });

  it("a failed send is retried, and recorded with Meta's code when it keeps failing", async () => {
    const p = fresh();
    c.graph.failNext("server-error", 1);
    await c.post(textMessage("hello retry", p));
    await eventually(async () => expect(sentTo(p.from)).toHaveLength(1));
    await eventually(async () =>
      expect(await outboundOf(p.from)).toMatchObject([{ status: "sent", attempts: 2 }]),
    );

    const q = fresh();
    // The worker's own try and every retry of the job (limit 2) fail.
    c.graph.failNext("server-error", 4);
    await c.post(textMessage("hello failing", q));
    await eventually(
      async () =>
        expect(await outboundOf(q.from)).toMatchObject([
          { status: "failed", errorCode: "131000", attempts: 4 },
        ]),
      40_000,
    );
    expect(sentTo(q.from)).toHaveLength(0);
    c.graph.failNext("server-error", 0);
  }, 60_000);

  it("an undeliverable number is recorded at once, without retries", async () => {
    const p = fresh();
    c.graph.failNext("undeliverable", 1);
    await c.post(textMessage("hello undeliverable", p));
    await eventually(async () =>
      expect(await outboundOf(p.from)).toMatchObject([
        { status: "failed", errorCode: "131026", attempts: 1 },
      ]),
    );
  });

  it("a tool call shows WhatsApp's typing indicator while it runs", async () => {
    const p = fresh();
    await c.post(textMessage("what are your hours", p));
    const [sent] = await eventually(async () => {
      const s = sentTo(p.from);
      expect(s).toHaveLength(1);
      return s;
    });
    expect(textOf(sent!)).toBe("From 9 to 5.");
    expect(c.graph.reads).toContainEqual({ messageId: p.id, typing: true });
    const before = c.graph.reads.length;
    const q = fresh();
    await c.post(textMessage("hello without tools", q));
    await eventually(async () => expect(sentTo(q.from)).toHaveLength(1));
    expect(c.graph.reads.slice(before).filter((r) => r.messageId === q.id)).toHaveLength(0);
  });

  it("a long answer is split under 4,096 characters, in order", async () => {
    const p = fresh();
    await c.post(textMessage("a long one please", p));
    const sent = await eventually(async () => {
      const s = sentTo(p.from);
      expect(s.length).toBeGreaterThan(1);
      return s;
    });
    const texts = sent.map((s) => textOf(s)!);
    expect(texts.every((t) => t.length <= 4096)).toBe(true);
    expect(texts.at(-1)!.endsWith("The end.")).toBe(true);
  });
});
