import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { BotSettings } from "@/lib/db/schema";
import { livePresence, memberships, packConfigs, tenants } from "@/lib/db/schema";
import { liveEscalationWorkers } from "@/lib/live/escalation";
import { recordPresence } from "@/lib/live/presence";
import { liveWords } from "@/shared/live-words";
import { callbackUpdate, staleCallbackUpdate, textUpdate } from "../fixtures/channels/telegram/updates";
import { buttonReply, textMessage } from "../fixtures/channels/whatsapp/webhooks";
import { type ChannelWorld, eventually, startChannelWorld } from "../support/channel-world";

// The buttons under a first answer on WhatsApp (reply buttons) and Telegram (an inline keyboard), against the
// fake Graph and Bot APIs, which refuse what Meta and Telegram refuse (3 buttons, 20-character titles, 1,024
// characters of body, callback_data of 1-64 bytes): the starters and "Talk to a person" in the business's
// language; a tap on a starter is answered as the starter, a tap on "Talk to a person" opens the live request
// as the words do; a delivery repeated by the provider is answered once.

const STARTERS = ["What are your opening hours on weekdays?", "Where are you?", "Do you deliver?"];
const BOT: BotSettings = {
  language: "en",
  starters: STARTERS,
  startersByLang: {
    es: ["¿Cuál es vuestro horario?", "¿Dónde estáis?"],
    ja: ["営業時間を教えてください。土曜日と日曜日も営業していますか？"],
  },
};
let c: ChannelWorld;
let seq = 0;
const wa = () => {
  seq++;
  return { from: `1555030${String(seq).padStart(4, "0")}`, timestamp: Math.floor(Date.now() / 1000) };
};
const tg = () => {
  seq++;
  return { chatId: 5_550_400_000 + seq, updateId: 950_000 + seq * 10, date: Math.floor(Date.now() / 1000) };
};
type Interactive = {
  body: { text: string };
  action: { buttons: { reply: { id: string; title: string } }[] };
};
const waSent = (to: string) => c.graph.sent.filter((s) => s.to === to);
const waText = (s: ReturnType<typeof waSent>[number]) =>
  s.type === "interactive"
    ? (s.body.interactive as Interactive).body.text
    : (s.body.text as { body: string }).body;
const waButtons = (s: ReturnType<typeof waSent>[number]) =>
  (s.body.interactive as Interactive).action.buttons.map((b) => b.reply);
const tgSent = (chatId: number) => c.telegram.sent.filter((s) => String(s.chatId) === String(chatId));
type Keyboard = { inline_keyboard: { text: string; callback_data: string }[][] };
const keyboardOf = (s: ReturnType<typeof tgSent>[number]) =>
  (s.body.reply_markup as Keyboard | undefined)?.inline_keyboard.flat();

async function conversationOf(address: string) {
  const rows = await c.rows();
  const contact = rows.contacts.find((k) => k.address === address)!;
  return {
    conv: rows.conversations.find((x) => x.id === contact.conversationId)!,
    said: rows.messages.filter((m) => m.conversationId === contact.conversationId && m.role === "user"),
  };
}
const setBot = (bot: BotSettings) =>
  c.w.db.platform.update(tenants).set({ bot }).where(eq(tenants.id, c.tenant.id));
const setRequestHuman = (enabled: boolean) =>
  c.w.db.platform.update(packConfigs).set({ enabled }).where(eq(packConfigs.tenantId, c.tenant.id));

beforeAll(async () => {
  // A live request schedules its escalation: the process runs that worker beside the channels'.
  c = await startChannelWorld({ bot: BOT, workers: (db) => liveEscalationWorkers(db) });
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
    { match: "opening hours", steps: [{ type: "text", text: "We open at nine." }] },
    { match: "営業時間", steps: [{ type: "text", text: "九時からです。" }] },
    { match: "", steps: [{ type: "text", text: "Hello." }] },
  ]);
});
afterAll(() => c?.close());
beforeEach(async () => {
  await setBot(BOT);
  await setRequestHuman(true);
  // Nobody has opened the console: only request_human offers a person, unless a test says otherwise.
  await c.w.db.platform.delete(livePresence);
});

describe("WhatsApp", () => {
  it("offers two starters and Talk to a person as reply buttons on the first answer only", async () => {
    const p = wa();
    await c.post(textMessage("hi", { ...p, id: `wamid.btn-${p.from}-1` }));
    await eventually(async () => expect(waSent(p.from)).toHaveLength(1));
    const [first] = waSent(p.from);
    expect(first!.type).toBe("interactive");
    expect(waText(first!)).toBe("Hello.");
    expect(waButtons(first!)).toEqual([
      { id: `starter:${STARTERS[0]}`, title: "What are your…" },
      { id: "starter:Where are you?", title: "Where are you?" },
      { id: "live:person", title: "Talk to a person" },
    ]);
    await c.post(textMessage("thanks", { ...p, id: `wamid.btn-${p.from}-2` }));
    await eventually(async () => expect(waSent(p.from)).toHaveLength(2));
    expect(waSent(p.from)[1]!.type).toBe("text");
  });

  it("offers only the starters where the business has neither request_human nor live chat", async () => {
    await setRequestHuman(false);
    const p = wa();
    await c.post(textMessage("hi", { ...p, id: `wamid.btn-${p.from}-1` }));
    await eventually(async () => expect(waSent(p.from)).toHaveLength(1));
    expect(waButtons(waSent(p.from)[0]!).map((b) => b.id)).toEqual(STARTERS.map((s) => `starter:${s}`));
    // Someone of the team opening the live console is live chat set up: the person's button comes back.
    await recordPresence(c.ctx, {});
    const q = wa();
    await c.post(textMessage("hi", { ...q, id: `wamid.btn-${q.from}-1` }));
    await eventually(async () => expect(waSent(q.from)).toHaveLength(1));
    expect(waButtons(waSent(q.from)[0]!).at(-1)?.id).toBe("live:person");
  });

  it("answers a tapped starter as the whole starter, not its shortened title", async () => {
    const p = wa();
    const tap = buttonReply(`starter:${STARTERS[0]}`, "What are your…", {
      ...p,
      id: `wamid.btn-${p.from}-tap`,
      contextId: "wamid.FAKE000001",
    });
    await c.post(tap);
    await eventually(async () => expect(waSent(p.from)).toHaveLength(1));
    expect(waText(waSent(p.from)[0]!)).toBe("We open at nine.");
    expect((await conversationOf(p.from)).said.map((m) => m.content)).toEqual([STARTERS[0]]);
  });

  it("opens the live request on a tap of Talk to a person, once when Meta delivers the tap twice", async () => {
    await recordPresence(c.ctx, {});
    const p = wa();
    const tap = buttonReply("live:person", "Talk to a person", { ...p, id: `wamid.btn-${p.from}-person` });
    expect((await c.post(tap)).status).toBe(200);
    expect((await c.post(tap)).status).toBe(200);
    await eventually(async () => expect(waSent(p.from).map(waText)).toEqual([liveWords("en").waiting]));
    const { conv, said } = await conversationOf(p.from);
    expect(conv.liveState).toBe("waiting");
    expect(conv.liveAgentId).toBe(c.ctx.user.id);
    expect(said.map((m) => m.content)).toEqual(["Talk to a person"]);
    expect(
      (await c.rows()).inbound.filter((i) => i.externalId === `wamid.btn-${p.from}-person`),
    ).toHaveLength(1);
  });

  it("labels the buttons in the business's language, and a tap asks for a person in it", async () => {
    await setBot({ ...BOT, language: "es" });
    const p = wa();
    await c.post(textMessage("hola", { ...p, id: `wamid.btn-${p.from}-1` }));
    await eventually(async () => expect(waSent(p.from)).toHaveLength(1));
    expect(waButtons(waSent(p.from)[0]!).map((b) => b.title)).toEqual([
      "¿Cuál es vuestro…",
      "¿Dónde estáis?",
      "Hablar con alguien",
    ]);
    // Someone is online: the Spanish words for waiting. The button tapped was sent before the business
    // switched to Spanish: its id, not its English title, decides what the person asked.
    await recordPresence(c.ctx, {});
    await c.post(buttonReply("live:person", "Talk to a person", { ...p, id: `wamid.btn-${p.from}-2` }));
    await eventually(async () => expect(waSent(p.from)).toHaveLength(2));
    expect(waText(waSent(p.from)[1]!)).toBe(liveWords("es").waiting);
    const { conv, said } = await conversationOf(p.from);
    expect(conv.liveState).toBe("waiting");
    expect(said.map((m) => m.content)).toEqual(["hola", "Hablar con alguien"]);
  });
});

describe("Telegram", () => {
  it("sends the starters and Talk to a person as an inline keyboard on the first answer", async () => {
    const p = tg();
    await c.postTelegram(textUpdate("hi", p));
    await eventually(async () => expect(tgSent(p.chatId)).toHaveLength(1));
    expect(keyboardOf(tgSent(p.chatId)[0]!)).toEqual([
      ...STARTERS.map((s) => ({ text: s, callback_data: `starter:${s}` })),
      { text: "Talk to a person", callback_data: "live:person" },
    ]);
    await c.postTelegram(textUpdate("thanks", { ...p, updateId: p.updateId + 1 }));
    await eventually(async () => expect(tgSent(p.chatId)).toHaveLength(2));
    expect(keyboardOf(tgSent(p.chatId)[1]!)).toBeUndefined();
  });

  it("answers a tapped starter as the starter, stops the spinner first, and once for a redelivery", async () => {
    const p = tg();
    const callbackId = `cb-${p.chatId}`;
    const tap = callbackUpdate(`starter:${STARTERS[0]}`, { ...p, callbackId, label: STARTERS[0] });
    expect((await c.postTelegram(tap)).status).toBe(200);
    expect((await c.postTelegram(tap)).status).toBe(200);
    await eventually(async () => expect(tgSent(p.chatId).map((s) => s.html)).toEqual(["We open at nine."]));
    const calls = c.telegram.requests.filter(
      (r) => r.body.callback_query_id === callbackId || String(r.body.chat_id) === String(p.chatId),
    );
    // The fixture's message was never sent by this fake bot: Telegram finds nothing to edit, and the tap is
    // answered all the same.
    expect(calls.map((r) => r.apiMethod)).toEqual([
      "answerCallbackQuery",
      "editMessageReplyMarkup",
      "sendMessage",
    ]);
    expect((await conversationOf(String(p.chatId))).said.map((m) => m.content)).toEqual([STARTERS[0]]);
  });

  it("removes the keyboard after a tap, so a second tap of it is not answered again", async () => {
    const p = tg();
    await c.postTelegram(textUpdate("hi", p));
    await eventually(async () => expect(tgSent(p.chatId)).toHaveLength(1));
    const first = tgSent(p.chatId)[0]!;
    expect(c.telegram.markupOf(first.messageId)).toBeDefined();
    // Two quick taps on the keyboard of the bot's answer: both reach us before the keyboard is gone.
    const tap = (n: number, data: string, label: string) =>
      callbackUpdate(data, {
        ...p,
        updateId: p.updateId + n,
        messageId: first.messageId,
        callbackId: `cb-${p.chatId}-${n}`,
        label,
      });
    expect((await c.postTelegram(tap(1, `starter:${STARTERS[0]}`, STARTERS[0]!))).status).toBe(200);
    expect((await c.postTelegram(tap(2, "live:person", "Talk to a person"))).status).toBe(200);
    await eventually(async () => {
      const taps = (await c.rows()).inbound.filter((i) =>
        [String(p.updateId + 1), String(p.updateId + 2)].includes(i.externalId),
      );
      expect(taps.map((i) => i.status).sort()).toEqual(["done", "skipped"]);
    });
    // Answered once: the first tap's starter; the second tap opened no live request and ran no turn.
    expect(tgSent(p.chatId).map((s) => s.html)).toEqual(["Hello.", "We open at nine."]);
    const { conv, said } = await conversationOf(String(p.chatId));
    expect(said.map((m) => m.content)).toEqual(["hi", STARTERS[0]]);
    expect(conv.liveState).not.toBe("waiting");
    // The keyboard is gone from the bot's message, removed once, on that chat's message.
    expect(c.telegram.markupOf(first.messageId)).toBeUndefined();
    expect(c.telegram.edits).toContainEqual({
      chatId: String(p.chatId),
      messageId: first.messageId,
      replyMarkup: undefined,
    });
    expect(c.telegram.edits.filter((e) => e.messageId === first.messageId)).toHaveLength(1);
    // Both spinners stopped.
    expect(c.telegram.answeredCallbacks).toEqual(
      expect.arrayContaining([`cb-${p.chatId}-1`, `cb-${p.chatId}-2`]),
    );
  });

  it("opens the live request on a tap of Talk to a person", async () => {
    await recordPresence(c.ctx, {});
    const p = tg();
    await c.postTelegram(callbackUpdate("live:person", { ...p, callbackId: `cb-${p.chatId}` }));
    await eventually(async () =>
      expect(tgSent(p.chatId).map((s) => s.html)).toEqual([liveWords("en").waiting]),
    );
    // The button's id decides, not its text (the fixture's keyboard labels it "Opening hours").
    const { conv, said } = await conversationOf(String(p.chatId));
    expect(conv.liveState).toBe("waiting");
    expect(said.map((m) => m.content)).toEqual(["Talk to a person"]);
    expect(c.telegram.answeredCallbacks).toContain(`cb-${p.chatId}`);
  });

  it("fits a long Japanese starter in 64 bytes of callback_data and answers its tap as the starter", async () => {
    await setBot({ ...BOT, language: "ja" });
    const p = tg();
    await c.postTelegram(textUpdate("こんにちは", p));
    await eventually(async () => expect(tgSent(p.chatId)).toHaveLength(1));
    const keyboard = keyboardOf(tgSent(p.chatId)[0]!)!;
    expect(keyboard.map((b) => b.text)).toEqual([BOT.startersByLang!.ja![0], "担当者と話す"]);
    expect(keyboard.every((b) => Buffer.byteLength(b.callback_data) <= 64)).toBe(true);
    // Even from a message too old for Telegram to send its keyboard back.
    const data = keyboard[0]!.callback_data;
    await c.postTelegram(
      staleCallbackUpdate(data, { ...p, updateId: p.updateId + 1, callbackId: `cb-${p.chatId}` }),
    );
    await eventually(async () => expect(tgSent(p.chatId)).toHaveLength(2));
    expect(tgSent(p.chatId)[1]!.html).toBe("九時からです。");
  });
});
