import "server-only";
import {
  type ChannelFailure,
  type ChannelResult,
  type ChannelWire,
  channelBase,
  defaultChannelWire,
  isWireFailure,
  retryAfterSeconds,
  wireFailure,
} from "../wire";

// The Bot API calls a connection needs (https://core.telegram.org/bots/api#making-requests): every method is
// `POST https://api.telegram.org/bot<token>/<method>` with a JSON body, answered `{ ok: true, result }` or
// `{ ok: false, error_code, description, parameters }`. The token is part of the URL path, so URLs are never
// logged and failures never repeat them. A 429 carries `parameters.retry_after`, handed back to the caller
// rather than slept on here: the caller's queue decides when to try again.

export const TELEGRAM_HOST = "api.telegram.org";

export type TelegramClientOptions = {
  botToken: string;
  /** Only the allowlist lets this point anywhere but https://api.telegram.org. */
  baseUrl?: string;
  wire?: ChannelWire;
};

/** An inline keyboard button whose tap comes back as a callback_query with `data` (1–64 bytes). */
export type TgButton = { text: string; data: string };

export type TgWebhookInfo = {
  url: string;
  pendingUpdateCount: number;
  lastErrorMessage: string | null;
  lastErrorDate: number | null;
};

export type TelegramClient = {
  /** Sends HTML-formatted text (see format.ts); `buttons` become one inline keyboard row each. */
  sendMessage(
    chatId: number | string,
    html: string,
    opts?: { buttons?: readonly TgButton[] },
  ): Promise<ChannelResult>;
  sendChatAction(chatId: number | string, action: "typing"): Promise<ChannelResult>;
  answerCallbackQuery(callbackQueryId: string): Promise<ChannelResult>;
  /**
   * Removes the inline keyboard of one of the bot's messages. A keyboard already gone fails with the code
   * "not_modified" (Telegram's "message is not modified"), which is how a second tap is recognised.
   */
  removeKeyboard(chatId: number | string, messageId: number): Promise<ChannelResult>;
  setWebhook(url: string, secretToken: string): Promise<ChannelResult>;
  deleteWebhook(): Promise<ChannelResult>;
  getMe(): Promise<ChannelResult<{ username: string | null; firstName: string | null }>>;
  getWebhookInfo(): Promise<ChannelResult<TgWebhookInfo>>;
};

type TgAnswer = {
  ok?: unknown;
  result?: unknown;
  error_code?: unknown;
  description?: unknown;
  parameters?: { retry_after?: unknown };
};

export function createTelegramClient(opts: TelegramClientOptions): TelegramClient {
  const wire = opts.wire ?? defaultChannelWire();
  const base = channelBase(opts.baseUrl ?? `https://${TELEGRAM_HOST}`, TELEGRAM_HOST, wire.allowHosts);
  // A token is "<digits>:<letters, digits, _ and ->"; anything else could change the path, so it is refused.
  const tokenOk = /^\d+:[\w-]+$/.test(opts.botToken);

  async function call(
    method: string,
    body: Record<string, unknown>,
  ): Promise<{ result: unknown } | ChannelFailure> {
    if (!tokenOk)
      return fail("invalid", "This is not a Telegram bot token (it looks like 123456:ABC-DEF…)", false);
    const a = await wire.send("POST", `${base}/bot${opts.botToken}/${method}`, { json: body });
    if (isWireFailure(a)) return wireFailure(a);
    const j = (a.json ?? {}) as TgAnswer;
    if (a.status >= 200 && a.status < 300 && j.ok === true) return { result: j.result };
    const code = typeof j.error_code === "number" ? j.error_code : a.status;
    const retryAfter =
      typeof j.parameters?.retry_after === "number"
        ? j.parameters.retry_after
        : retryAfterSeconds(a.retryAfterHeader);
    const description = typeof j.description === "string" ? j.description : null;
    return {
      ok: false,
      code: String(code),
      message: words(code, description),
      retryable: code === 429 || code >= 500,
      retryAfter,
    };
  }

  const done = async (method: string, body: Record<string, unknown>): Promise<ChannelResult> => {
    const r = await call(method, body);
    return "ok" in r ? r : { ok: true, id: "" };
  };

  return {
    async sendMessage(chatId, html, o = {}) {
      const r = await call("sendMessage", {
        chat_id: chatId,
        text: html,
        parse_mode: "HTML",
        link_preview_options: { is_disabled: true },
        ...(o.buttons?.length
          ? {
              reply_markup: {
                inline_keyboard: o.buttons.map((b) => [{ text: b.text, callback_data: b.data }]),
              },
            }
          : {}),
      });
      if ("ok" in r) return r;
      const id = (r.result as { message_id?: unknown } | null)?.message_id;
      return typeof id === "number"
        ? { ok: true, id: String(id) }
        : fail("invalid", "Telegram sent no message id", true);
    },
    sendChatAction: (chatId, action) => done("sendChatAction", { chat_id: chatId, action }),
    answerCallbackQuery: (id) => done("answerCallbackQuery", { callback_query_id: id }),
    async removeKeyboard(chatId, messageId) {
      // editMessageReplyMarkup without reply_markup leaves the message with no keyboard
      // (https://core.telegram.org/bots/api#editmessagereplymarkup). Editing a message into what it already
      // is fails with "Bad Request: message is not modified" (its wording as bot libraries meet it:
      // https://github.com/eternnoir/pyTelegramBotAPI/issues/763, https://github.com/daniel-hauser/moneyman/pull/133).
      const r = await done("editMessageReplyMarkup", { chat_id: chatId, message_id: messageId });
      return !r.ok && r.code === "400" && /message is not modified/i.test(r.message)
        ? { ...r, code: "not_modified" }
        : r;
    },
    setWebhook: (url, secretToken) =>
      done("setWebhook", {
        url,
        secret_token: secretToken,
        allowed_updates: ["message", "edited_message", "callback_query"],
      }),
    deleteWebhook: () => done("deleteWebhook", {}),

    async getMe() {
      const r = await call("getMe", {});
      if ("ok" in r) return r;
      const me = (r.result ?? {}) as { id?: unknown; username?: unknown; first_name?: unknown };
      return {
        ok: true,
        id: String(me.id ?? ""),
        username: typeof me.username === "string" ? me.username : null,
        firstName: typeof me.first_name === "string" ? me.first_name : null,
      };
    },

    async getWebhookInfo() {
      const r = await call("getWebhookInfo", {});
      if ("ok" in r) return r;
      const w = (r.result ?? {}) as Record<string, unknown>;
      return {
        ok: true,
        id: "",
        url: typeof w.url === "string" ? w.url : "",
        pendingUpdateCount: typeof w.pending_update_count === "number" ? w.pending_update_count : 0,
        lastErrorMessage: typeof w.last_error_message === "string" ? w.last_error_message : null,
        lastErrorDate: typeof w.last_error_date === "number" ? w.last_error_date : null,
      };
    },
  };
}

function fail(code: string, message: string, retryable: boolean): ChannelFailure {
  return { ok: false, code, message, retryable, retryAfter: null };
}

/** Telegram's description in words an admin can act on; the description itself never holds the token. */
function words(code: number, description: string | null): string {
  if (code === 401)
    return "Telegram does not know this bot token (it was revoked or mistyped); copy it again from @BotFather";
  if (code === 404) return "Telegram does not know this bot token; copy it again from @BotFather";
  if (code === 403) return "The user has blocked the bot or the bot cannot write in this chat";
  if (code === 429) return "Telegram asked us to slow down";
  if (code === 409) return "Another webhook or getUpdates client is using this bot";
  return description ? `Telegram refused the request: ${description}` : `The Bot API answered HTTP ${code}`;
}
