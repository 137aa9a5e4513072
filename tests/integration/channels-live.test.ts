import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TenantContext } from "@/lib/auth/access";
import { listLiveQueue } from "@/lib/db/queries/live-conversations";
import { readLiveEvents } from "@/lib/db/queries/live-events";
import { channelContacts, conversations, livePresence, memberships, packConfigs } from "@/lib/db/schema";
import { liveEscalationWorkers } from "@/lib/live/escalation";
import { recordPresence } from "@/lib/live/presence";
import { addInternalNote, sendAgentReply } from "@/lib/live/reply";
import { closeLiveConversation, handBackConversation } from "@/lib/live/takeover";
import { liveWords } from "@/shared/live-words";
import { textUpdate } from "../fixtures/channels/telegram/updates";
import { textMessage } from "../fixtures/channels/whatsapp/webhooks";
import { makeUser } from "../support/admin-world";
import { type ChannelWorld, eventually, startChannelWorld } from "../support/channel-world";

// The live takeover on WhatsApp and Telegram (issues #28 + #29): a person there reaches the business's team
// (plain words, or the assistant's request_human), their messages then wait for the team in the console and
// get no bot answer, and what the team replies goes out through the channel's own send job, in order, once.

let c: ChannelWorld;
const words = liveWords("en");
/** What a person on a channel reads when someone of the team takes the conversation (issue 45 item 4). */
const joined = () => `${c.ctx.user.name || c.ctx.user.email.split("@")[0]} joined the conversation.`;
let seq = 0;
const wa = () => {
  seq++;
  return { from: `1555020${String(seq).padStart(4, "0")}`, ts: Math.floor(Date.now() / 1000) };
};
const waText = (p: ReturnType<typeof wa>, body: string) =>
  textMessage(body, { from: p.from, id: `wamid.live-${p.from}-${++seq}`, timestamp: p.ts });
const waTo = (to: string) =>
  c.graph.sent.filter((s) => s.to === to).map((s) => (s.body.text as { body: string }).body);
const tgTo = (chatId: number) => c.telegram.sent.filter((s) => String(s.chatId) === String(chatId));

async function conversationOf(address: string) {
  const rows = await c.rows();
  const contact = rows.contacts.find((k) => k.address === address)!;
  return rows.conversations.find((x) => x.id === contact.conversationId)!;
}
const answered = (address: string, n: number) =>
  eventually(async () => {
    const rows = await c.rows();
    const k = rows.contacts.find((x) => x.address === address);
    const done = rows.inbound.filter((i) => i.address === null && k && i.status !== "pending");
    expect(done.length).toBeGreaterThanOrEqual(n);
  });
const online = (ctx: TenantContext) => recordPresence(ctx, {});

beforeAll(async () => {
  c = await startChannelWorld({ workers: (db) => liveEscalationWorkers(db) });
  // The world's owner answers visitors: an agent is a member (owner or admin) with the console open.
  await c.w.db.platform
    .insert(memberships)
    .values({ tenantId: c.tenant.id, userId: c.ctx.user.id, role: "owner" });
  await c.w.db.forTenant(c.tenant.id, (tx) =>
    tx.insert(packConfigs).values({
      tenantId: c.tenant.id,
      packId: "request_human",
      enabled: true,
      config: { consentText: "I agree to be contacted." },
    }),
  );
  c.w.fake.setRules([
    {
      match: "someone",
      steps: [
        { type: "tool_calls", calls: [{ id: "h1", name: "request_human", arguments: '{"topic":"refund"}' }] },
        { type: "text", text: "I can put you through to our team." },
      ],
    },
    { match: "", steps: [{ type: "text", text: "Hello from the bot." }] },
  ]);
});
afterAll(() => c?.close());
beforeEach(async () => {
  await c.w.db.platform.delete(livePresence);
});

describe("a WhatsApp person asks for a person in plain words", () => {
  it("with someone online: they wait, hear so, and their messages reach the console and get no bot answer", async () => {
    await online(c.ctx);
    const p = wa();
    await c.post(waText(p, "Talk to a person"));
    await eventually(async () => expect(waTo(p.from)).toEqual([words.waiting]));
    const conv = await conversationOf(p.from);
    expect(conv.liveState).toBe("waiting");
    expect(conv.liveAgentId).toBe(c.ctx.user.id);
    // The console's queue says where the person writes from.
    const queue = await c.w.db.forTenant(c.tenant.id, (tx) => listLiveQueue(tx, c.tenant.id));
    expect(queue.find((q) => q.id === conv.id)).toMatchObject({
      channel: "whatsapp",
      question: "Talk to a person",
    });

    await c.post(waText(p, "are you there?"));
    const events = await eventually(async () => {
      const e = await readLiveEvents(c.w.db, c.tenant.id, {
        after: 0,
        conversationId: conv.id,
        kinds: ["visitor_message"],
        limit: 50,
      });
      expect(e.map((x) => (x.data as { text: string }).text)).toContain("are you there?");
      return e;
    });
    expect(events.length).toBeGreaterThan(0);
    await eventually(async () => {
      const rows = await c.rows();
      const mine = rows.inbound.filter((i) => i.externalId.startsWith(`wamid.live-${p.from}`));
      expect(mine.every((i) => i.status === "done")).toBe(true);
    });
    expect(waTo(p.from)).toEqual([words.waiting]);
    const rows = await c.rows();
    expect(rows.messages.filter((m) => m.conversationId === conv.id && m.role === "assistant")).toEqual([]);
  });

  it("the team's replies go out in WhatsApp's formatting, in order, once; a note never does", async () => {
    await online(c.ctx);
    const p = wa();
    await c.post(waText(p, "talk to a person!"));
    await eventually(async () => expect(waTo(p.from)).toHaveLength(1));
    const conv = await conversationOf(p.from);
    // The first reply fails for now (Meta's temporary error) and is retried: the later ones wait for it.
    c.graph.failNext("server-error", 1);
    await sendAgentReply(c.ctx, { conversationId: conv.id, text: "Hi, I'm **Ana**." });
    await addInternalNote(c.ctx, { conversationId: conv.id, text: "VIP, be nice" });
    await sendAgentReply(c.ctx, { conversationId: conv.id, text: "Your refund is on its way." });
    await sendAgentReply(c.ctx, { conversationId: conv.id, text: "Anything else?" });
    // The first reply claims the conversation: the person hears who joined before the reply itself.
    await eventually(async () => expect(waTo(p.from)).toHaveLength(5));
    expect(waTo(p.from).slice(1)).toEqual([
      joined(),
      "Hi, I'm *Ana*.",
      "Your refund is on its way.",
      "Anything else?",
    ]);
    await handBackConversation(c.ctx, { conversationId: conv.id });
    await eventually(async () => expect(waTo(p.from).at(-1)).toBe(words.backToBot));
    // With the bot again: the next message gets the bot's answer.
    await c.post(waText(p, "thanks"));
    await eventually(async () => expect(waTo(p.from).at(-1)).toBe("Hello from the bot."));
    expect(waTo(p.from)).toHaveLength(7);
    expect(waTo(p.from).join("\n")).not.toContain("VIP");
    const rows = await c.rows();
    expect(rows.outbound.filter((o) => o.conversationId === conv.id).map((o) => o.status)).toEqual(
      Array(7).fill("sent"),
    );
  });

  it("a reply after WhatsApp's 24-hour window is not sent, and says so", async () => {
    await online(c.ctx);
    const p = wa();
    await c.post(waText(p, "Talk to a person"));
    await eventually(async () => expect(waTo(p.from)).toHaveLength(1));
    const conv = await conversationOf(p.from);
    await c.w.db.platform
      .update(channelContacts)
      .set({ lastInboundAt: new Date(Date.now() - 25 * 3600_000) })
      .where(eq(channelContacts.conversationId, conv.id));
    await sendAgentReply(c.ctx, { conversationId: conv.id, text: "Sorry for the wait!" });
    await eventually(async () => {
      const rows = await c.rows();
      // Who joined, then the reply: neither may go out after the window.
      expect(rows.outbound.filter((o) => o.conversationId === conv.id).map((o) => o.status)).toEqual([
        "sent",
        "outside_window",
        "outside_window",
      ]);
    });
    expect(waTo(p.from)).toHaveLength(1);
  });

  it("a viewer of the business, or a member of another, sends nothing to the person", async () => {
    await online(c.ctx);
    const p = wa();
    await c.post(waText(p, "Talk to a person"));
    await eventually(async () => expect(waTo(p.from)).toHaveLength(1));
    const conv = await conversationOf(p.from);
    const other = await c.w.tenant();
    const stranger = await makeUser(c.w.db, `owner-${other.slug}@example.com`);
    const as = (role: "viewer" | "owner", tenant: typeof other, user: typeof stranger): TenantContext => ({
      ...c.ctx,
      user: { ...c.ctx.user, id: user.id, email: user.email, name: user.name },
      tenant,
      role,
    });
    const input = { conversationId: conv.id, text: "not for you" };
    await expect(sendAgentReply(as("viewer", c.tenant, stranger), input)).rejects.toMatchObject({
      code: "forbidden",
    });
    await expect(sendAgentReply(as("owner", other, stranger), input)).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(handBackConversation(as("owner", other, stranger), input)).rejects.toMatchObject({
      code: "not_found",
    });
    const rows = await c.rows();
    expect(rows.outbound.filter((o) => o.conversationId === conv.id)).toHaveLength(1);
  });

  it("with nobody online: they are told to leave their details, and the bot keeps the conversation", async () => {
    const p = wa();
    await c.post(waText(p, "Talk to a person"));
    await eventually(async () => expect(waTo(p.from)).toEqual([words.nobody]));
    expect((await conversationOf(p.from)).liveState).toBe("bot");
  });
});

describe("a Telegram person", () => {
  let chat = 5_550_400_000;
  let update = 800_000;
  const tg = (text: string, chatId: number) =>
    c.postTelegram(textUpdate(text, { chatId, updateId: ++update, date: Math.floor(Date.now() / 1000) }));

  it("reaches a person when the assistant offers one (request_human), and reads the close words", async () => {
    await online(c.ctx);
    const chatId = ++chat;
    await tg("can someone help me with a refund", chatId);
    await eventually(async () => expect(tgTo(chatId)).toHaveLength(2));
    expect(tgTo(chatId).map((s) => s.html)).toEqual(["I can put you through to our team.", words.waiting]);
    const conv = await conversationOf(String(chatId));
    expect(conv.liveState).toBe("waiting");
    await sendAgentReply(c.ctx, { conversationId: conv.id, text: "Ana here: **on it** <3" });
    await eventually(async () => expect(tgTo(chatId)).toHaveLength(4));
    expect(tgTo(chatId)[2]!.html).toBe(joined());
    expect(tgTo(chatId)[3]!.html).toBe("Ana here: <b>on it</b> &lt;3");
    await closeLiveConversation(c.ctx, { conversationId: conv.id });
    await eventually(async () => expect(tgTo(chatId).at(-1)?.html).toBe(words.closed));
  });

  it("hears that nobody is available when the assistant offers a person and nobody is online", async () => {
    const chatId = ++chat;
    await tg("is there someone I can call", chatId);
    await eventually(async () => expect(tgTo(chatId)).toHaveLength(2));
    expect(tgTo(chatId)[1]!.html).toBe(words.nobody);
    const [row] = await c.w.db.platform
      .select()
      .from(conversations)
      .where(eq(conversations.id, (await conversationOf(String(chatId))).id));
    expect(row!.liveState).toBe("bot");
  });
});
