import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { platformPacks } from "@/lib/chat/packs";
import type { BotSettings } from "@/lib/db/schema";
import { auditLog, pendingToolCalls, tenants } from "@/lib/db/schema";
import type { ToolContext, ToolPack } from "@/lib/tools/contract";
import type { EnabledPack } from "@/lib/tools/runtime";
import { callbackUpdate, textUpdate } from "../fixtures/channels/telegram/updates";
import { buttonReply, textMessage } from "../fixtures/channels/whatsapp/webhooks";
import { type ChannelWorld, eventually, startChannelWorld } from "../support/channel-world";

// Issue 41 on WhatsApp and Telegram: a pack that acts for the person (here a table booking) shows a card, the
// title and the labelled values as text with Confirm and Cancel as reply buttons (WhatsApp) or an inline
// keyboard (Telegram), through the fake Graph and Bot APIs, which refuse what Meta and Telegram refuse. The pack
// runs once, only on a tap of Confirm, read by the button's id; a second tap, Cancel, a typed "yes", another
// person's or an edited id, and a tap after ten minutes run nothing. The tap payloads are the providers' own
// shapes (tests/fixtures/channels: Meta's interactive.button_reply message, Telegram's callback_query update).

const runs: { args: unknown; key: string | undefined }[] = [];
const book: ToolPack = {
  id: "book_table",
  label: "Booking a table",
  definition: {
    type: "function",
    function: {
      name: "book_table",
      description: "Books a table (test).",
      parameters: {
        type: "object",
        properties: { name: { type: "string" }, people: { type: "integer" }, when: { type: "string" } },
        required: ["name", "people", "when"],
      },
    },
  },
  configFields: [],
  confirm: {
    title: { en: "Book this table?", es: "¿Reservar esta mesa?" },
    fields: [
      { key: "name", label: "Name", labels: { es: "Nombre" } },
      { key: "people", label: "Party size", labels: { es: "Personas" } },
      { key: "when", label: "Date and time", labels: { es: "Fecha y hora" } },
    ],
  },
  run: async (_config, args, ctx: ToolContext) => {
    runs.push({ args, key: ctx.idempotencyKey });
    return { reference: "T-77" };
  },
};
const enabled: EnabledPack[] = [{ pack: book, config: {}, definition: book.definition }];
const ARGS = { name: "Ana", people: 4, when: "Friday 19:30" };
const BOT: BotSettings = { language: "en" };

let c: ChannelWorld;
let seq = 0;
const wa = () => {
  seq++;
  return { from: `1555071${String(seq).padStart(4, "0")}`, timestamp: Math.floor(Date.now() / 1000) };
};
const wamid = (p: { from: string }, n: number) => `wamid.cf-${p.from}-${n}`;
const tg = () => {
  seq++;
  return { chatId: 5_550_700_000 + seq, updateId: 970_000 + seq * 10, date: Math.floor(Date.now() / 1000) };
};
type Interactive = {
  body: { text: string };
  action: { buttons: { type: string; reply: { id: string; title: string } }[] };
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
  (s.body.reply_markup as Keyboard | undefined)?.inline_keyboard;

const callsOf = async (address: string) => {
  const rows = await c.rows();
  const conv = rows.contacts.find((k) => k.address === address)!.conversationId;
  return c.w.db.forTenant(c.tenant.id, (tx) =>
    tx.select().from(pendingToolCalls).where(eq(pendingToolCalls.conversationId, conv)),
  );
};
/** What the model was told last as the card's call's result. */
const lastToolResult = () =>
  String(
    [...(c.w.fake.requests.at(-1)?.body.messages ?? [])].reverse().find((m) => m.role === "tool")?.content,
  );

/** Sends "book a table" from a new WhatsApp person and returns the card's message and its two buttons. */
async function waCard() {
  const p = wa();
  await c.post(textMessage("I want to book a table", { ...p, id: wamid(p, 1) }));
  await eventually(async () => expect(waSent(p.from)).toHaveLength(1));
  const card = waSent(p.from)[0]!;
  const [confirm, cancel] = waButtons(card);
  return { p, card, confirm: confirm!, cancel: cancel! };
}

beforeAll(async () => {
  c = await startChannelWorld({
    packs: { ...platformPacks, loadEnabled: async () => enabled },
    bot: BOT,
  });
  c.w.fake.setRules([
    {
      match: "book a table",
      steps: [
        {
          type: "tool_calls",
          calls: [{ id: "call_book", name: "book_table", arguments: JSON.stringify(ARGS) }],
        },
        { type: "text", text: "Result: {{tool}}" },
      ],
    },
    { match: "yes", steps: [{ type: "text", text: "Please use the Confirm button." }] },
    { match: "", steps: [{ type: "text", text: "Hello." }] },
  ]);
});
afterAll(() => c?.close());
beforeEach(async () => {
  await c.w.db.platform.update(tenants).set({ bot: BOT }).where(eq(tenants.id, c.tenant.id));
});

describe("WhatsApp", () => {
  it("shows the card as reply buttons, runs the pack once on Confirm and sends the answer; a second tap changes nothing", async () => {
    const before = runs.length;
    const { p, card, confirm, cancel } = await waCard();
    expect(card.type).toBe("interactive");
    const text = waText(card);
    expect(text).toContain("*Book this table?*");
    expect(text).toContain("• Name: Ana");
    expect(text).toContain("• Party size: 4");
    expect(text).toContain("• Date and time: Friday 19:30");
    expect(text).toContain("Nothing is sent until you tap Confirm.");
    expect(text).not.toContain("{");
    expect(text.length).toBeLessThanOrEqual(1024);
    expect([confirm.title, cancel.title]).toEqual(["Confirm", "Cancel"]);
    for (const b of [confirm, cancel]) {
      expect(b.id.length).toBeLessThanOrEqual(256);
      expect(b.id).not.toContain(b.title);
    }
    expect(runs.length).toBe(before);
    const [pending] = await callsOf(p.from);
    expect(pending).toMatchObject({ status: "pending", args: ARGS });

    // The id decides, not the label: the tap says "Cancel" in its title but carries Confirm's id.
    await c.post(buttonReply(confirm.id, "Cancel", { ...p, id: wamid(p, 2), contextId: card.id }));
    await eventually(async () => expect(waSent(p.from)).toHaveLength(2));
    expect(waText(waSent(p.from)[1]!)).toContain("T-77");
    expect(runs.length).toBe(before + 1);
    const [done] = await callsOf(p.from);
    expect(done!.status).toBe("done");
    expect(runs.at(-1)).toEqual({ args: ARGS, key: done!.idempotencyKey });

    // Meta delivers the same tap again (one wamid: stored once), and the person taps Confirm a second time.
    await c.post(buttonReply(confirm.id, "Confirm", { ...p, id: wamid(p, 2), contextId: card.id }));
    await c.post(buttonReply(confirm.id, "Confirm", { ...p, id: wamid(p, 3), contextId: card.id }));
    await eventually(async () => expect(waSent(p.from)).toHaveLength(3));
    expect(waText(waSent(p.from)[2]!)).toBe("This request is no longer open, so nothing was sent.");
    expect(runs.length).toBe(before + 1);
    const audit = await c.w.db.forTenant(c.tenant.id, (tx) =>
      tx.select().from(auditLog).where(eq(auditLog.target, done!.id)),
    );
    expect(audit.map((r) => r.action).sort()).toEqual(["action.confirmed", "action.proposed"]);
  });

  it("runs nothing on Cancel, and the model is told the person declined", async () => {
    const before = runs.length;
    const { p, card, cancel } = await waCard();
    await c.post(buttonReply(cancel.id, "Cancel", { ...p, id: wamid(p, 2), contextId: card.id }));
    await eventually(async () => expect(waSent(p.from)).toHaveLength(2));
    expect(lastToolResult()).toContain("Declined by the visitor");
    expect((await callsOf(p.from))[0]!.status).toBe("declined");
    expect(runs.length).toBe(before);
  });

  it("never confirms on a typed yes: the new message declines the card, and its Confirm later runs nothing", async () => {
    const before = runs.length;
    const { p, card, confirm } = await waCard();
    await c.post(textMessage("yes", { ...p, id: wamid(p, 2) }));
    await eventually(async () => expect(waSent(p.from)).toHaveLength(2));
    expect(waText(waSent(p.from)[1]!)).toBe("Please use the Confirm button.");
    expect(lastToolResult()).toContain("wrote a new message instead");
    expect((await callsOf(p.from))[0]!.status).toBe("declined");
    await c.post(buttonReply(confirm.id, "Confirm", { ...p, id: wamid(p, 3), contextId: card.id }));
    await eventually(async () => expect(waSent(p.from)).toHaveLength(3));
    expect(waText(waSent(p.from)[2]!)).toBe("This request is no longer open, so nothing was sent.");
    expect(runs.length).toBe(before);
  });

  it("refuses another person's card, an edited id and a guessed one; the card stays open for its owner", async () => {
    const before = runs.length;
    const a = await waCard();
    const b = wa();
    // Another person sends the first person's Confirm id as their own tap.
    await c.post(buttonReply(a.confirm.id, "Confirm", { ...b, id: wamid(b, 1) }));
    // The owner's id with the other decision's letter, and a made-up id in the same shape.
    const edited = a.cancel.id.replace(/^act:n:/, "act:y:");
    const guessed = `act:y:${"A".repeat(22)}:${"B".repeat(16)}`;
    await c.post(buttonReply(edited, "Confirm", { ...a.p, id: wamid(a.p, 2) }));
    await c.post(buttonReply(guessed, "Confirm", { ...a.p, id: wamid(a.p, 3) }));
    await eventually(async () => {
      expect(waSent(b.from).map(waText)).toEqual(["This request is no longer open, so nothing was sent."]);
      expect(waSent(a.p.from)).toHaveLength(3);
    });
    expect(runs.length).toBe(before);
    expect((await callsOf(a.p.from))[0]!.status).toBe("pending");
    // The owner's own Confirm still works.
    await c.post(buttonReply(a.confirm.id, "Confirm", { ...a.p, id: wamid(a.p, 4), contextId: a.card.id }));
    await eventually(async () => expect(waSent(a.p.from)).toHaveLength(4));
    expect(runs.length).toBe(before + 1);
  });

  it("expires after ten minutes: a late Confirm runs nothing and the model is told", async () => {
    const before = runs.length;
    const { p, card, confirm } = await waCard();
    const [row] = await callsOf(p.from);
    await c.w.db.platform
      .update(pendingToolCalls)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(pendingToolCalls.id, row!.id));
    await c.post(buttonReply(confirm.id, "Confirm", { ...p, id: wamid(p, 2), contextId: card.id }));
    await eventually(async () => expect(waSent(p.from)).toHaveLength(2));
    expect(lastToolResult()).toContain("Expired");
    expect((await callsOf(p.from))[0]!.status).toBe("expired");
    expect(runs.length).toBe(before);
  });
});

describe("Telegram", () => {
  it("shows the card as an inline keyboard in the bot's language; a double tap runs once, each tap answered, the keyboard removed", async () => {
    await c.w.db.platform
      .update(tenants)
      .set({ bot: { language: "es" } })
      .where(eq(tenants.id, c.tenant.id));
    const before = runs.length;
    const p = tg();
    await c.postTelegram(textUpdate("I want to book a table", p));
    await eventually(async () => expect(tgSent(p.chatId)).toHaveLength(1));
    const card = tgSent(p.chatId)[0]!;
    expect(card.html).toContain("<b>¿Reservar esta mesa?</b>");
    expect(card.html).toContain("• Personas: 4");
    const keyboard = keyboardOf(card)!;
    expect(keyboard.flat().map((b) => b.text)).toEqual(["Confirmar", "Cancelar"]);
    for (const b of keyboard.flat()) {
      const bytes = Buffer.byteLength(b.callback_data, "utf8");
      expect(bytes).toBeGreaterThanOrEqual(1);
      expect(bytes).toBeLessThanOrEqual(64);
    }
    const confirmData = keyboard[0]![0]!.callback_data;
    const tap = (n: number) =>
      callbackUpdate(confirmData, {
        ...p,
        updateId: p.updateId + n,
        messageId: card.messageId,
        callbackId: `cb-${p.chatId}-${n}`,
        label: "Confirmar",
        text: card.html,
        keyboard,
      });
    // Two quick taps on Confirm: both reach us before the keyboard is gone.
    expect((await c.postTelegram(tap(1))).status).toBe(200);
    expect((await c.postTelegram(tap(2))).status).toBe(200);
    await eventually(async () => {
      const taps = (await c.rows()).inbound.filter((i) =>
        [String(p.updateId + 1), String(p.updateId + 2)].includes(i.externalId),
      );
      expect(taps.map((i) => i.status).sort()).toEqual(["done", "skipped"]);
    });
    await eventually(async () => expect(tgSent(p.chatId)).toHaveLength(2));
    expect(tgSent(p.chatId)[1]!.html).toContain("T-77");
    expect(runs.length).toBe(before + 1);
    expect((await callsOf(String(p.chatId)))[0]!.status).toBe("done");
    expect(c.telegram.answeredCallbacks).toEqual(
      expect.arrayContaining([`cb-${p.chatId}-1`, `cb-${p.chatId}-2`]),
    );
    expect(c.telegram.markupOf(card.messageId)).toBeUndefined();
  });

  it("runs nothing on Cancel", async () => {
    const before = runs.length;
    const p = tg();
    await c.postTelegram(textUpdate("book a table for friday", p));
    await eventually(async () => expect(tgSent(p.chatId)).toHaveLength(1));
    const card = tgSent(p.chatId)[0]!;
    const keyboard = keyboardOf(card)!;
    const cancelData = keyboard[1]![0]!.callback_data;
    await c.postTelegram(
      callbackUpdate(cancelData, {
        ...p,
        updateId: p.updateId + 1,
        messageId: card.messageId,
        callbackId: `cb-${p.chatId}-1`,
        label: "Cancel",
        text: card.html,
        keyboard,
      }),
    );
    await eventually(async () => expect(tgSent(p.chatId)).toHaveLength(2));
    expect((await callsOf(String(p.chatId)))[0]!.status).toBe("declined");
    expect(runs.length).toBe(before);
  });
});
