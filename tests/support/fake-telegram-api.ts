import type { IncomingHttpHeaders } from "node:http";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import {
  type Answer,
  checkReplyMarkup,
  FAULT,
  fail,
  ok,
  parseTelegramHtml,
  type TelegramFault,
} from "./fake-telegram-dialect";
import { certificates } from "./fixture-site";

// A fake Telegram Bot API on loopback (https, throwaway CA, reached through the operator allowlist), speaking
// the Bot API's dialect (https://core.telegram.org/bots/api#making-requests): `POST /bot<token>/<method>`
// answered `{ ok: true, result }` or `{ ok: false, error_code, description, parameters? }`. What it checks is
// what Telegram refuses: an unknown token (401 Unauthorized), a text that is empty or over 4,096 characters
// after entity parsing, HTML that its parser rejects ("can't parse entities",
// https://core.telegram.org/bots/api#html-style), a webhook URL that is not https; a test can script 429
// with `parameters.retry_after` (the shape in https://github.com/tdlib/telegram-bot-api/issues/184), a
// blocked user (403) and an unknown chat (400). An inline keyboard is checked as Telegram checks it
// (checkReplyMarkup), and a callback query takes one answer. Everything it was sent is recorded.

export type TelegramRequest = {
  method: string;
  /** The Bot API method (sendMessage …). */
  apiMethod: string;
  token: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  at: number;
};

export type TelegramSent = {
  messageId: number;
  chatId: number | string;
  html: string;
  body: Record<string, unknown>;
};

export type FakeTelegramApi = {
  /** https://localhost:PORT, to pass as the client's baseUrl. */
  baseUrl: string;
  host: string;
  caPem: string;
  token: string;
  requests: TelegramRequest[];
  sent: TelegramSent[];
  /** Chat actions sent (typing …), in order. */
  actions: { chatId: number | string; action: string }[];
  answeredCallbacks: string[];
  /** editMessageReplyMarkup calls Telegram accepted, in order. */
  edits: { chatId: number | string; messageId: number; replyMarkup: unknown }[];
  /** The inline keyboard a sent message carries now (undefined once removed). */
  markupOf(messageId: number): unknown;
  webhook: { url: string; secretToken: string | null; allowedUpdates: string[] | null } | null;
  /** The next `times` calls of `apiMethod` fail with `fault`. */
  failNext(apiMethod: string, fault: TelegramFault, times?: number): void;
  /** What getWebhookInfo reports as the last delivery error (Telegram could not reach the webhook). */
  setDeliveryError(message: string | null): void;
  waitForSent(n: number, timeoutMs?: number): Promise<TelegramSent[]>;
  close(): Promise<void>;
};

export async function startFakeTelegramApi(opts: { token?: string } = {}): Promise<FakeTelegramApi> {
  const { caPem, key, cert } = await certificates();
  const token = opts.token ?? "7012345678:AAFakeTelegramBotTokenForTests_123";
  const botId = Number(token.split(":")[0]);
  const requests: TelegramRequest[] = [];
  const sent: TelegramSent[] = [];
  const actions: { chatId: number | string; action: string }[] = [];
  const answeredCallbacks: string[] = [];
  const edits: FakeTelegramApi["edits"] = [];
  // Each sent message's current keyboard, as editMessageReplyMarkup sees it.
  const markups = new Map<number, unknown>();
  const faults = new Map<string, TelegramFault[]>();
  const waiters: { n: number; resolve: () => void }[] = [];
  let deliveryError: string | null = null;
  let messageId = 500;
  const state: { webhook: FakeTelegramApi["webhook"] } = { webhook: null };

  function call(apiMethod: string, body: Record<string, unknown>): Answer {
    const fault = faults.get(apiMethod)?.shift();
    if (fault) return FAULT[fault.kind](fault);
    switch (apiMethod) {
      case "getMe":
        return ok({
          id: botId,
          is_bot: true,
          first_name: "Michi",
          username: "michi_test_bot",
          can_join_groups: true,
          can_read_all_group_messages: false,
          supports_inline_queries: false,
        });
      case "sendMessage": {
        const chatId = body.chat_id;
        if (typeof chatId !== "number" && typeof chatId !== "string")
          return fail(400, "Bad Request: chat_id is empty");
        if (typeof body.text !== "string" || body.text.trim() === "")
          return fail(400, "Bad Request: message text is empty");
        let visible = body.text;
        if (body.parse_mode === "HTML") {
          const parsed = parseTelegramHtml(body.text);
          if ("error" in parsed) return fail(400, parsed.error);
          visible = parsed.text;
        } else if (body.parse_mode !== undefined)
          return fail(400, "Bad Request: unsupported parse_mode in the fake");
        if (visible.length > 4096) return fail(400, "Bad Request: message is too long");
        const markup = checkReplyMarkup(body.reply_markup);
        if (markup) return fail(400, markup);
        const id = ++messageId;
        sent.push({ messageId: id, chatId, html: body.text, body });
        markups.set(id, emptyToNone(body.reply_markup));
        for (const w of waiters.splice(0)) {
          if (sent.length >= w.n) w.resolve();
          else waiters.push(w);
        }
        return ok({
          message_id: id,
          from: { id: botId, is_bot: true, first_name: "Michi", username: "michi_test_bot" },
          chat: { id: chatId, type: "private" },
          date: Math.floor(Date.now() / 1000),
          text: visible,
        });
      }
      case "sendChatAction":
        if (typeof body.action !== "string")
          return fail(400, "Bad Request: wrong parameter action in request");
        actions.push({ chatId: body.chat_id as number, action: body.action });
        return ok(true);
      case "answerCallbackQuery":
        if (typeof body.callback_query_id !== "string")
          return fail(
            400,
            "Bad Request: query is too old and response timeout expired or query ID is invalid",
          );
        // Telegram takes one answer per query; a second is refused like an expired one.
        if (answeredCallbacks.includes(body.callback_query_id))
          return fail(
            400,
            "Bad Request: query is too old and response timeout expired or query ID is invalid",
          );
        answeredCallbacks.push(body.callback_query_id);
        return ok(true);
      case "editMessageReplyMarkup": {
        // https://core.telegram.org/bots/api#editmessagereplymarkup: chat_id and message_id of a message the
        // bot sent; without reply_markup the keyboard is removed. An edit that changes nothing is refused
        // ("message is not modified"), as Telegram refuses it.
        const { chat_id: chatId, message_id: mid } = body;
        if (typeof chatId !== "number" && typeof chatId !== "string")
          return fail(400, "Bad Request: chat_id is empty");
        if (typeof mid !== "number") return fail(400, "Bad Request: message identifier is not specified");
        const target = sent.find((m) => m.messageId === mid && String(m.chatId) === String(chatId));
        if (!target) return fail(400, "Bad Request: message to edit not found");
        const next = emptyToNone(body.reply_markup);
        if (next !== undefined) {
          const markup = checkReplyMarkup(next);
          if (markup) return fail(400, markup);
        }
        if (JSON.stringify(next) === JSON.stringify(markups.get(mid)))
          return fail(
            400,
            "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message",
          );
        markups.set(mid, next);
        edits.push({ chatId, messageId: mid, replyMarkup: next });
        return ok({
          message_id: mid,
          from: { id: botId, is_bot: true, first_name: "Michi", username: "michi_test_bot" },
          chat: { id: target.chatId, type: "private" },
          date: Math.floor(Date.now() / 1000),
          edit_date: Math.floor(Date.now() / 1000),
          text: target.html,
          ...(next === undefined ? {} : { reply_markup: next }),
        });
      }
      case "setWebhook": {
        const url = body.url;
        if (typeof url !== "string" || !url.startsWith("https://"))
          return fail(400, "Bad Request: bad webhook: An HTTPS URL must be provided for webhook");
        const secret = body.secret_token;
        if (secret !== undefined && (typeof secret !== "string" || !/^[A-Za-z0-9_-]{1,256}$/.test(secret)))
          return fail(400, "Bad Request: secret token contains unallowed characters");
        state.webhook = {
          url,
          secretToken: (secret as string | undefined) ?? null,
          allowedUpdates: (body.allowed_updates as string[] | undefined) ?? null,
        };
        return ok(true, "Webhook was set");
      }
      case "deleteWebhook":
        state.webhook = null;
        return ok(true, "Webhook was deleted");
      case "getWebhookInfo":
        return ok({
          url: state.webhook?.url ?? "",
          has_custom_certificate: false,
          pending_update_count: deliveryError ? 3 : 0,
          max_connections: 40,
          ...(state.webhook?.allowedUpdates ? { allowed_updates: state.webhook.allowedUpdates } : {}),
          ...(deliveryError
            ? { last_error_date: Math.floor(Date.now() / 1000) - 60, last_error_message: deliveryError }
            : {}),
        });
      default:
        return fail(404, "Not Found");
    }
  }

  const server = createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = new URL(req.url ?? "/", "https://localhost").pathname;
      const m = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(path);
      let body: Record<string, unknown> = {};
      try {
        body = chunks.length
          ? (JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>)
          : {};
      } catch {
        body = {};
      }
      let a: Answer;
      if (!m) a = fail(404, "Not Found");
      else {
        requests.push({
          method: req.method ?? "GET",
          apiMethod: m[2]!,
          token: m[1]!,
          headers: req.headers,
          body,
          at: Date.now(),
        });
        a = m[1] === token ? call(m[2]!, body) : fail(401, "Unauthorized");
      }
      res.writeHead(a.status, { "content-type": "application/json" }).end(JSON.stringify(a.body));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    baseUrl: `https://localhost:${port}`,
    host: `localhost:${port}`,
    caPem,
    token,
    requests,
    sent,
    actions,
    answeredCallbacks,
    edits,
    markupOf: (messageId) => markups.get(messageId),
    get webhook() {
      return state.webhook;
    },
    failNext(apiMethod, fault, times = 1) {
      const list = faults.get(apiMethod) ?? [];
      for (let i = 0; i < times; i++) list.push(fault);
      faults.set(apiMethod, list);
    },
    setDeliveryError(message) {
      deliveryError = message;
    },
    waitForSent(n, timeoutMs = 20_000) {
      if (sent.length >= n) return Promise.resolve(sent);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`expected ${n} Telegram sends, got ${sent.length}`)),
          timeoutMs,
        );
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve(sent);
          },
        });
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A keyboard with no buttons shows nothing: Telegram treats it like no keyboard. */
function emptyToNone(markup: unknown): unknown {
  const rows = (markup as { inline_keyboard?: unknown[][] } | undefined)?.inline_keyboard;
  return markup === undefined || markup === null || (Array.isArray(rows) && rows.flat().length === 0)
    ? undefined
    : markup;
}
