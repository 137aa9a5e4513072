import "server-only";
import type { ConnectionRow } from "../../db/queries/channels";
import type { NewInbound } from "../../db/queries/channels-queue";
import type { ChannelAdapter, ChannelCheck, ParsedDelivery } from "../adapter-types";
import { hasButtons, telegramButtons } from "../buttons";
import { telegramClientFor } from "../deps";
import { channelVisitorId, openChannelSecret } from "../identity";
import { formatBodies } from "../reply-format";
import { withSources } from "../sources";
import { TELEGRAM_TEXT_MAX } from "../split";
import { webhookUrl } from "../webhook-url";
import { createTelegramClient } from "./api";
import { toTelegramMessages } from "./format";
import { parseTelegramUpdate } from "./parse";
import { verifyTelegramSecret } from "./verify";

// Telegram (the Bot API) as a channel adapter, assembled from this folder's client, format, parser and
// secret check.

/** As many starters as the panel shows. */
const TG_MAX_STARTERS = 6;

function parse(c: ConnectionRow, json: unknown): ParsedDelivery {
  const u = parseTelegramUpdate(json);
  // Private chats only: in a group the bot would answer everyone's every message.
  // An edited message was answered as first sent.
  if (u?.chatType !== "private" || ("edited" in u && u.edited)) return { inbound: [], statuses: [] };
  const address = String(u.chatId);
  const body: NewInbound["body"] =
    u.kind === "text"
      ? { text: u.text }
      : u.kind === "callback"
        ? {
            text: u.label ?? u.data ?? "",
            callbackId: u.callbackId,
            ...(u.data ? { button: u.data } : {}),
            // The bot's message the keyboard is on (not when Telegram no longer lets the bot see it: date 0).
            ...(u.messageId && u.date > 0 ? { tapped: u.messageId } : {}),
          }
        : { kind: u.kind === "media" ? u.media : u.type };
  return {
    inbound: [
      {
        tenantId: c.tenantId,
        connectionId: c.id,
        externalId: String(u.updateId),
        contact: channelVisitorId(telegram.visitorPrefix, c.id, address),
        address,
        kind: body.text !== undefined ? "text" : u.kind,
        body,
        // A callback has no date of its own; the update id then orders it (Telegram numbers them in order).
        sentAt: new Date(u.date > 0 ? u.date * 1000 : Date.now()),
      },
    ],
    statuses: [],
  };
}

async function check(
  api: Parameters<typeof telegramClientFor>[0],
  conn: ConnectionRow,
  refused: string | null,
): Promise<ChannelCheck> {
  const client = telegramClientFor(api, conn);
  const lines: string[] = [];
  let ok = true;
  const me = await client.getMe();
  if (!me.ok) {
    ok = false;
    lines.push(me.message);
  } else {
    lines.push(`The bot token works for @${me.username ?? "your bot"}.`);
    const info = await client.getWebhookInfo();
    if (!info.ok) {
      ok = false;
      lines.push(info.message);
    } else if (info.url !== webhookUrl(conn)) {
      ok = false;
      lines.push(
        "Telegram is not sending this bot's messages here (its webhook points elsewhere). Connect again to fix it.",
      );
    } else if (info.lastErrorMessage) {
      ok = false;
      lines.push(`Telegram could not reach the webhook: ${info.lastErrorMessage}`);
    } else {
      lines.push("Telegram delivers this bot's messages here.");
    }
  }
  // Telegram's own last error is about reaching us; a refusal is about what reached us.
  if (refused) {
    ok = false;
    lines.push(refused);
  }
  return { ok, lines };
}

export const telegram: ChannelAdapter = {
  channel: "telegram",
  visitorPrefix: "tg",
  provider: "Telegram",
  limits: {
    textMax: TELEGRAM_TEXT_MAX,
    buttonBodyMax: TELEGRAM_TEXT_MAX,
    starters: () => TG_MAX_STARTERS,
    // An inline keyboard has room for far more; a card uses two.
    choices: TG_MAX_STARTERS,
  },
  window: null,
  words: { secret: "webhook secret", storeAgain: "Press Connect Telegram again." },
  describe: (conn) => ({
    status: conn.settings.botUsername ? `Connected as @${conn.settings.botUsername}.` : "Connected.",
    webhookLabel: "Webhook URL (registered at Telegram for you)",
    actions: "Actions such as bookings wait for the customer's Confirm, a button under a card of the values.",
  }),
  verify({ headers }, secret) {
    const header = headers.get("x-telegram-bot-api-secret-token");
    if (!header) return "missing_secret_token";
    const stored = secret("webhookSecret");
    if (!stored) return "secret_unreadable";
    return verifyTelegramSecret(header, stored) ? null : "wrong_secret_token";
  },
  parse,
  format: (markdown, offer, sources) =>
    formatBodies(toTelegramMessages(withSources(markdown, sources)), offer, telegram.limits.starters),
  send: (api, conn, to, body) =>
    telegramClientFor(api, conn).sendMessage(
      to,
      body.text,
      hasButtons(body) ? { buttons: telegramButtons(body) } : {},
    ),
  typing: (api, conn, to) => telegramClientFor(api, conn).sendChatAction(to, "typing"),
  // A tap on an inline keyboard (taps.ts says why): the spinner stopped at once, then the keyboard removed.
  async acknowledgeTap(api, conn, to, inbound) {
    const body = inbound.body;
    if (!body?.callbackId) return { answer: true, buttonsRemoved: false };
    const client = telegramClientFor(api, conn);
    // A failure only leaves the spinner to Telegram's own timeout.
    await client.answerCallbackQuery(body.callbackId);
    // A retry of this tap's job: its own removal already happened, and it must still be answered.
    if (!body.tapped || body.keyboardRemoved) return { answer: true, buttonsRemoved: false };
    const removed = await client.removeKeyboard(to, body.tapped);
    if (removed.ok) return { answer: true, buttonsRemoved: true };
    // Any other failure (Telegram away, a message it no longer lets the bot edit) must not cost the person
    // their answer; "not modified" means an earlier tap already took the keyboard.
    return { answer: removed.code !== "not_modified", buttonsRemoved: false };
  },
  check,
  // Tells Telegram to stop sending; the webhook would refuse its updates anyway (the key is gone).
  async disconnect(api, conn) {
    const botToken = openChannelSecret(conn.secrets, conn.tenantId, conn.id, "botToken");
    if (botToken) await createTelegramClient({ botToken, baseUrl: api.telegramBaseUrl }).deleteWebhook();
  },
};
