import { describe, expect, it } from "vitest";
import { parseTelegramUpdate } from "@/lib/channels/telegram/parse";
import { parseWhatsAppWebhook } from "@/lib/channels/whatsapp/parse";
import * as tg from "../fixtures/channels/telegram/updates";
import * as wa from "../fixtures/channels/whatsapp/webhooks";

// The webhook bodies as the bot sees them: every kind of customer message keeps what the answer needs, and
// nothing a channel adds later, or sends malformed, crashes the job.

describe("parseWhatsAppWebhook", () => {
  it("reads a text message with the sender's profile name and the receiving number", () => {
    const { messages, statuses } = parseWhatsAppWebhook(
      wa.textMessage("Do you deliver?", { id: "wamid.A1", timestamp: 1764600123 }),
    );
    expect(statuses).toEqual([]);
    expect(messages).toEqual([
      {
        id: "wamid.A1",
        from: wa.CUSTOMER,
        timestamp: 1764600123,
        phoneNumberId: wa.PHONE_NUMBER_ID,
        profileName: wa.CUSTOMER_NAME,
        contextId: null,
        kind: "text",
        text: "Do you deliver?",
      },
    ]);
  });

  it("reads button taps: reply buttons, list rows and template quick replies", () => {
    const [b] = parseWhatsAppWebhook(wa.buttonReply("starter-2", "Opening hours")).messages;
    expect(b).toMatchObject({ kind: "button", buttonId: "starter-2", text: "Opening hours" });
    const [l] = parseWhatsAppWebhook(wa.listReply("row-1", "Vegan menu", "Our plant dishes")).messages;
    expect(l).toMatchObject({ kind: "button", buttonId: "row-1", text: "Vegan menu" });
    const [t] = parseWhatsAppWebhook(wa.templateButton("STOP_PROMOS", "Stop promotions")).messages;
    expect(t).toMatchObject({ kind: "button", buttonId: "STOP_PROMOS", text: "Stop promotions" });
  });

  it("reads media with caption and type, so the answer can say it cannot open them", () => {
    expect(parseWhatsAppWebhook(wa.imageMessage("Is this in stock?")).messages[0]).toMatchObject({
      kind: "media",
      media: "image",
      mediaId: "1479537139650973",
      mimeType: "image/jpeg",
      caption: "Is this in stock?",
    });
    expect(parseWhatsAppWebhook(wa.imageMessage(null)).messages[0]).toMatchObject({
      kind: "media",
      caption: null,
    });
    expect(parseWhatsAppWebhook(wa.voiceMessage()).messages[0]).toMatchObject({
      kind: "media",
      media: "audio",
    });
    expect(parseWhatsAppWebhook(wa.documentMessage()).messages[0]).toMatchObject({
      kind: "media",
      media: "document",
      caption: "Invoice",
    });
    expect(parseWhatsAppWebhook(wa.stickerMessage()).messages[0]).toMatchObject({
      kind: "media",
      media: "sticker",
      caption: null,
    });
  });

  it("reads locations, contact cards, reactions and a reply's context", () => {
    expect(parseWhatsAppWebhook(wa.locationMessage()).messages[0]).toMatchObject({
      kind: "location",
      latitude: 48.8584,
      longitude: 2.2945,
      name: "Tour Eiffel",
    });
    expect(parseWhatsAppWebhook(wa.contactsMessage()).messages[0]).toMatchObject({
      kind: "contacts",
      count: 1,
    });
    expect(parseWhatsAppWebhook(wa.reactionMessage("wamid.OURS", "👍")).messages[0]).toMatchObject({
      kind: "reaction",
      messageId: "wamid.OURS",
      emoji: "👍",
    });
    expect(parseWhatsAppWebhook(wa.reactionMessage("wamid.OURS", "")).messages[0]).toMatchObject({
      emoji: null,
    });
    expect(parseWhatsAppWebhook(wa.replyToMessage("yes that one", "wamid.OURS")).messages[0]).toMatchObject({
      kind: "text",
      contextId: "wamid.OURS",
    });
  });

  it("keeps Meta's own unsupported messages and unknown future types as unsupported", () => {
    expect(parseWhatsAppWebhook(wa.unsupportedMessage()).messages[0]).toMatchObject({
      kind: "unsupported",
      type: "unsupported",
    });
    const poll = wa.envelope({
      messages: [
        { from: wa.CUSTOMER, id: "wamid.P", timestamp: "1764600000", type: "poll_v9", poll_v9: { q: "?" } },
      ],
    });
    expect(parseWhatsAppWebhook(poll).messages[0]).toMatchObject({
      kind: "unsupported",
      type: "poll_v9",
      id: "wamid.P",
    });
  });

  it("reads sent, delivered and read statuses, and failed ones with Meta's code, title and details", () => {
    expect(parseWhatsAppWebhook(wa.status("wamid.OURS", "delivered")).statuses).toEqual([
      {
        messageId: "wamid.OURS",
        status: "delivered",
        recipient: wa.CUSTOMER,
        timestamp: 1764600060,
        phoneNumberId: wa.PHONE_NUMBER_ID,
        error: null,
      },
    ]);
    expect(parseWhatsAppWebhook(wa.status("wamid.OURS", "read")).statuses[0]?.status).toBe("read");
    const [failed] = parseWhatsAppWebhook(wa.failedStatus("wamid.OURS", 131047)).statuses;
    expect(failed).toMatchObject({
      status: "failed",
      error: { code: 131047, title: "Re-engagement message" },
    });
    expect(failed?.error?.details).toMatch(/24 hours/);
    expect(parseWhatsAppWebhook(wa.failedStatus("wamid.X", 131026)).statuses[0]?.error?.code).toBe(131026);
  });

  it("reads every message and status of a batched delivery, each with its own sender's name", () => {
    const { messages, statuses } = parseWhatsAppWebhook(wa.batched());
    expect(messages.map((m) => [m.id, m.profileName])).toEqual([
      ["wamid.BATCH-ONE", wa.CUSTOMER_NAME],
      ["wamid.BATCH-TWO", "Alan Turing"],
    ]);
    expect(statuses.map((s) => s.messageId)).toEqual(["wamid.OURS-1"]);
  });

  it("drops one malformed message without losing its neighbours", () => {
    const body = wa.batched();
    const value = (body.entry as { changes: { value: { messages: unknown[] } }[] }[])[0]!.changes[0]!.value;
    value.messages.splice(1, 0, { id: "wamid.BROKEN", type: "text" }, "not an object", null);
    expect(parseWhatsAppWebhook(body).messages.map((m) => m.id)).toEqual([
      "wamid.BATCH-ONE",
      "wamid.BATCH-TWO",
    ]);
  });

  it("answers nothing for other fields, other objects and garbage, never throwing", () => {
    for (const body of [
      wa.accountUpdate(),
      { object: "page", entry: [] },
      {},
      null,
      "text",
      42,
      [],
      { object: "whatsapp_business_account" },
    ]) {
      expect(parseWhatsAppWebhook(body)).toEqual({ messages: [], statuses: [] });
    }
  });
});

describe("parseTelegramUpdate", () => {
  it("reads a private text message with who sent it", () => {
    expect(
      parseTelegramUpdate(tg.textUpdate("Are you open on Sunday?", { updateId: 42, messageId: 7 })),
    ).toEqual({
      updateId: 42,
      chatId: tg.USER_ID,
      chatType: "private",
      from: { id: tg.USER_ID, firstName: "Ada", username: "ada_l", languageCode: "en" },
      date: 1764600000,
      kind: "text",
      messageId: 7,
      text: "Are you open on Sunday?",
      edited: false,
    });
  });

  it("marks an edited message as edited and reads /start as text", () => {
    expect(parseTelegramUpdate(tg.editedUpdate("fixed typo"))).toMatchObject({
      kind: "text",
      text: "fixed typo",
      edited: true,
    });
    expect(parseTelegramUpdate(tg.startUpdate())).toMatchObject({ kind: "text", text: "/start" });
  });

  it("reads a callback query with its data, chat and message", () => {
    expect(parseTelegramUpdate(tg.callbackUpdate("starter:1", { messageId: 9 }))).toMatchObject({
      kind: "callback",
      callbackId: "4382bfdwdsb323b2d9",
      chatId: tg.USER_ID,
      messageId: 9,
      data: "starter:1",
      label: "Opening hours",
    });
  });

  it("a tap on a button of a message too old to be shown has no label, only its data", () => {
    expect(parseTelegramUpdate(tg.staleCallbackUpdate("live:person"))).toMatchObject({
      kind: "callback",
      data: "live:person",
      label: null,
      date: 0,
    });
  });

  it("reads photos, voice notes, documents and stickers as media with their caption", () => {
    expect(parseTelegramUpdate(tg.photoUpdate("this one?"))).toMatchObject({
      kind: "media",
      media: "photo",
      caption: "this one?",
    });
    expect(parseTelegramUpdate(tg.voiceUpdate())).toMatchObject({
      kind: "media",
      media: "voice",
      caption: null,
    });
    expect(parseTelegramUpdate(tg.documentUpdate())).toMatchObject({ kind: "media", media: "document" });
    expect(parseTelegramUpdate(tg.stickerUpdate())).toMatchObject({ kind: "media", media: "sticker" });
  });

  it("keeps a location as unsupported, naming what it was", () => {
    expect(parseTelegramUpdate(tg.locationUpdate())).toMatchObject({ kind: "unsupported", type: "location" });
  });

  it("keeps a group's chat type so the caller can decide not to answer there", () => {
    expect(parseTelegramUpdate(tg.groupTextUpdate("hi all"))).toMatchObject({
      chatType: "group",
      chatId: -1001234567890,
    });
  });

  it("is null for update kinds the bot does not answer and for garbage", () => {
    for (const body of [
      tg.blockedUpdate(),
      tg.channelPostUpdate(),
      { update_id: 1 },
      {},
      null,
      "x",
      { update_id: "1", message: {} },
    ]) {
      expect(parseTelegramUpdate(body)).toBeNull();
    }
  });
});
