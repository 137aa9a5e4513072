import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTelegramClient } from "@/lib/channels/telegram/api";
import { toTelegramHtml } from "@/lib/channels/telegram/format";
import { type ChannelWire, createChannelWire } from "@/lib/channels/wire";
import { type FakeTelegramApi, startFakeTelegramApi } from "../support/fake-telegram-api";

// The Telegram client against a fake Bot API on loopback: methods and bodies as Telegram expects them, the
// token only in the path, and refusals (401, 400, 403, 429 with retry_after) handed back in words.

let bot: FakeTelegramApi;
let wire: ChannelWire;

beforeAll(async () => {
  bot = await startFakeTelegramApi();
  wire = createChannelWire({ allowHosts: [bot.host], extraCaPem: bot.caPem });
});
afterAll(async () => {
  await wire.close();
  await bot.close();
});
beforeEach(() => {
  bot.requests.length = 0;
  bot.sent.length = 0;
  bot.actions.length = 0;
});

const client = (token = bot.token) => createTelegramClient({ botToken: token, baseUrl: bot.baseUrl, wire });

describe("Telegram client: sending", () => {
  it("sends HTML with parse_mode HTML and previews off, answering the message id", async () => {
    const html = toTelegramHtml("**Open** today & tomorrow, see [hours](https://shop.example.com/h)");
    const r = await client().sendMessage(5550199876, html);
    expect(r).toEqual({ ok: true, id: String(bot.sent[0]!.messageId) });
    expect(bot.requests[0]).toMatchObject({ method: "POST", apiMethod: "sendMessage" });
    expect(bot.requests[0]!.body).toMatchObject({
      chat_id: 5550199876,
      text: html,
      parse_mode: "HTML",
      link_preview_options: { is_disabled: true },
    });
  });

  it("adds inline buttons as one row each, with their callback data", async () => {
    await client().sendMessage(5550199876, "Pick one", {
      buttons: [
        { text: "Hours", data: "s:1" },
        { text: "Menu", data: "s:2" },
      ],
    });
    expect(bot.requests[0]!.body.reply_markup).toEqual({
      inline_keyboard: [[{ text: "Hours", callback_data: "s:1" }], [{ text: "Menu", callback_data: "s:2" }]],
    });
  });

  it("is refused as Telegram refuses a keyboard: callback_data over 64 bytes, a button without an action", async () => {
    const tooLong = await client().sendMessage(5550199876, "Pick one", {
      buttons: [{ text: "Hours", data: `starter:${"営".repeat(19)}` }],
    });
    expect(tooLong).toMatchObject({ ok: false, code: "400", retryable: false });
    expect((tooLong as { message: string }).message).toContain("BUTTON_DATA_INVALID");
    expect(
      await client().sendMessage(5550199876, "Pick one", { buttons: [{ text: "Hours", data: "" }] }),
    ).toMatchObject({ ok: false, code: "400" });
    // 64 bytes exactly is still allowed.
    const fits = `starter:${"営".repeat(18)}x${"y".repeat(1)}`;
    expect(Buffer.byteLength(fits)).toBe(64);
    expect(
      await client().sendMessage(5550199876, "Pick one", { buttons: [{ text: "Hours", data: fits }] }),
    ).toMatchObject({ ok: true });
    expect(bot.sent).toHaveLength(1);
  });

  it("shows typing and answers a callback query", async () => {
    expect(await client().sendChatAction(5550199876, "typing")).toEqual({ ok: true, id: "" });
    expect(bot.actions).toEqual([{ chatId: 5550199876, action: "typing" }]);
    expect(await client().answerCallbackQuery("4382bfdwdsb323b2d9")).toEqual({ ok: true, id: "" });
    expect(bot.answeredCallbacks).toContain("4382bfdwdsb323b2d9");
    // A query takes one answer; a second is refused as an expired one.
    expect(await client().answerCallbackQuery("4382bfdwdsb323b2d9")).toMatchObject({
      ok: false,
      code: "400",
    });
  });
});

describe("Telegram client: refusals", () => {
  it("429 hands back retry_after for the caller's queue instead of sleeping", async () => {
    bot.failNext("sendMessage", { kind: "flood", retryAfter: 17 });
    const started = Date.now();
    const r = await client().sendMessage(1, "x");
    expect(r).toMatchObject({ ok: false, code: "429", retryable: true, retryAfter: 17 });
    expect(Date.now() - started).toBeLessThan(17_000);
    expect(await client().sendMessage(1, "x")).toMatchObject({ ok: true });
  });

  it("a blocked user (403) and an unknown chat (400) are final", async () => {
    bot.failNext("sendMessage", { kind: "blocked" });
    const blocked = await client().sendMessage(1, "x");
    expect(blocked).toMatchObject({ ok: false, code: "403", retryable: false });
    expect(!blocked.ok && blocked.message).toMatch(/blocked the bot/);
    bot.failNext("sendMessage", { kind: "chat-not-found" });
    const unknown = await client().sendMessage(1, "x");
    expect(unknown).toMatchObject({ ok: false, code: "400", retryable: false });
    expect(!unknown.ok && unknown.message).toMatch(/chat not found/);
  });

  it("Telegram's own 5xx is retryable", async () => {
    bot.failNext("sendMessage", { kind: "server" });
    expect(await client().sendMessage(1, "x")).toMatchObject({ ok: false, code: "500", retryable: true });
  });

  it("HTML the parser refuses comes back as the parser's words", async () => {
    const r = await client().sendMessage(1, "<b>unclosed");
    expect(r).toMatchObject({ ok: false, code: "400", retryable: false });
    expect(!r.ok && r.message).toMatch(/can't parse entities/);
  });

  it("a revoked token says so and points to @BotFather, and never repeats the token", async () => {
    const revoked = "7012345678:AArevokedTokenValue_xyz";
    const r = await client(revoked).getMe();
    expect(r).toMatchObject({ ok: false, code: "401", retryable: false });
    expect(!r.ok && r.message).toMatch(/BotFather/);
    expect(JSON.stringify(r)).not.toContain("AArevoked");
  });

  it("refuses a token that is not a token before calling, so it cannot change the path", async () => {
    expect(await client("../getMe?x=").getMe()).toMatchObject({ ok: false, code: "invalid" });
    expect(await client("123:abc/../../x").getMe()).toMatchObject({ ok: false, code: "invalid" });
    expect(bot.requests).toHaveLength(0);
  });
});

describe("Telegram client: connection", () => {
  it("getMe names the bot", async () => {
    expect(await client().getMe()).toEqual({
      ok: true,
      id: "7012345678",
      username: "michi_test_bot",
      firstName: "Michi",
    });
  });

  it("setWebhook registers the URL with the secret token and the updates the bot answers", async () => {
    const url = "https://chat.example.com/api/channels/telegram/k_9f3a";
    expect(await client().setWebhook(url, "s3cr3t_Token-1")).toEqual({ ok: true, id: "" });
    expect(bot.webhook).toEqual({
      url,
      secretToken: "s3cr3t_Token-1",
      allowedUpdates: ["message", "edited_message", "callback_query"],
    });
  });

  it("setWebhook with an http URL is refused in Telegram's words", async () => {
    const r = await client().setWebhook("http://chat.example.com/hook", "s");
    expect(r).toMatchObject({ ok: false, code: "400" });
    expect(!r.ok && r.message).toMatch(/HTTPS URL must be provided/);
  });

  it("getWebhookInfo reports the URL and Telegram's last delivery error", async () => {
    await client().setWebhook("https://chat.example.com/hook", "s");
    expect(await client().getWebhookInfo()).toMatchObject({
      ok: true,
      url: "https://chat.example.com/hook",
      lastErrorMessage: null,
    });
    bot.setDeliveryError("Wrong response from the webhook: 401 Unauthorized");
    expect(await client().getWebhookInfo()).toMatchObject({
      ok: true,
      pendingUpdateCount: 3,
      lastErrorMessage: "Wrong response from the webhook: 401 Unauthorized",
      lastErrorDate: expect.any(Number),
    });
    bot.setDeliveryError(null);
  });

  it("deleteWebhook clears it", async () => {
    await client().setWebhook("https://chat.example.com/hook", "s");
    expect(await client().deleteWebhook()).toEqual({ ok: true, id: "" });
    expect(bot.webhook).toBeNull();
  });

  it("refuses a base URL other than api.telegram.org unless the allowlist names it", async () => {
    const bare = createChannelWire({});
    expect(() => createTelegramClient({ botToken: bot.token, baseUrl: bot.baseUrl, wire: bare })).toThrow(
      /api\.telegram\.org/,
    );
    expect(() => createTelegramClient({ botToken: bot.token, wire: bare })).not.toThrow();
    await bare.close();
  });
});
