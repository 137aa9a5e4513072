// The Bot API's answers as the fake Bot API gives them (https://core.telegram.org/bots/api#making-requests):
// `{ ok: true, result, description? }` or `{ ok: false, error_code, description, parameters? }`, 429 with
// `parameters.retry_after` as in https://github.com/tdlib/telegram-bot-api/issues/184, and the HTML parse
// mode's parser, strict where Telegram's is (https://core.telegram.org/bots/api#html-style).

export type TelegramFault =
  | { kind: "flood"; retryAfter: number }
  | { kind: "blocked" }
  | { kind: "chat-not-found" }
  | { kind: "server" };

export type Answer = { status: number; body: unknown };

export const ok = (result: unknown, description?: string): Answer => ({
  status: 200,
  body: { ok: true, result, ...(description ? { description } : {}) },
});
export const fail = (status: number, description: string, parameters?: Record<string, unknown>): Answer => ({
  status,
  body: { ok: false, error_code: status, description, ...(parameters ? { parameters } : {}) },
});

export const FAULT: Record<TelegramFault["kind"], (f: TelegramFault) => Answer> = {
  flood: (f) => {
    const s = (f as { retryAfter: number }).retryAfter;
    return fail(429, `Too Many Requests: retry after ${s}`, { retry_after: s });
  },
  blocked: () => fail(403, "Forbidden: bot was blocked by the user"),
  "chat-not-found": () => fail(400, "Bad Request: chat not found"),
  server: () => fail(500, "Internal Server Error"),
};

/**
 * An inline keyboard as Telegram checks it (https://core.telegram.org/bots/api#inlinekeyboardmarkup): rows of
 * buttons, each with a text and exactly one action; callback_data 1-64 bytes, else 400 BUTTON_DATA_INVALID
 * (python-telegram-bot/python-telegram-bot#528, jehy/telegram-test-api#62); a button with only a text is
 * refused as kotlin-telegram-bot/kotlin-telegram-bot#113 shows. The error, or null when Telegram would accept it.
 */
export function checkReplyMarkup(markup: unknown): string | null {
  if (markup === undefined) return null;
  const rows = (markup as { inline_keyboard?: unknown } | null)?.inline_keyboard;
  if (!Array.isArray(rows) || rows.some((r) => !Array.isArray(r)))
    return "Bad Request: can't parse reply keyboard markup JSON object";
  for (const b of rows.flat() as Record<string, unknown>[]) {
    if (typeof b?.text !== "string")
      return `Bad Request: can't parse inline keyboard button: Can't find field "text"`;
    if (b.text.trim() === "") return "Bad Request: BUTTON_TEXT_INVALID";
    if (b.callback_data === undefined && b.url === undefined)
      return "Bad Request: can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard";
    if (b.callback_data !== undefined) {
      const data = b.callback_data;
      const bytes = typeof data === "string" ? Buffer.byteLength(data, "utf8") : 0;
      if (bytes < 1 || bytes > 64) return "Bad Request: BUTTON_DATA_INVALID";
    }
  }
  return null;
}

// The tags Telegram's HTML parse mode accepts (https://core.telegram.org/bots/api#html-style).
const TAGS = new Set([
  "b",
  "strong",
  "i",
  "em",
  "u",
  "ins",
  "s",
  "strike",
  "del",
  "span",
  "tg-spoiler",
  "a",
  "code",
  "pre",
  "blockquote",
  "tg-emoji",
]);

/** Parses Bot API HTML the way Telegram does, enough to refuse what it refuses; the visible text, or the error. */
export function parseTelegramHtml(html: string): { text: string } | { error: string } {
  const stack: string[] = [];
  let text = "";
  const bytes = (i: number) => Buffer.byteLength(html.slice(0, i));
  for (let i = 0; i < html.length; ) {
    const c = html[i]!;
    if (c === "<") {
      const m = /^<(\/?)([a-z-]+)((?:\s+[a-z-]+(?:="[^"]*"|='[^']*')?)*)\s*>/i.exec(html.slice(i));
      if (!m)
        return {
          error: `Bad Request: can't parse entities: Unexpected end of name token at byte offset ${bytes(i)}`,
        };
      const [all, close, name] = m as unknown as [string, string, string];
      const tag = name.toLowerCase();
      if (!TAGS.has(tag))
        return {
          error: `Bad Request: can't parse entities: Unsupported start tag "${tag}" at byte offset ${bytes(i)}`,
        };
      if (close) {
        if (stack.pop() !== tag)
          return {
            error: `Bad Request: can't parse entities: Unmatched end tag at byte offset ${bytes(i)}, expected "</${stack.at(-1) ?? ""}>", found "</${tag}>"`,
          };
      } else stack.push(tag);
      i += all.length;
      continue;
    }
    if (c === "&") {
      const m = /^&(lt|gt|amp|quot|#\d+|#x[0-9a-f]+);/i.exec(html.slice(i));
      if (!m)
        return { error: `Bad Request: can't parse entities: Unsupported entity at byte offset ${bytes(i)}` };
      text += m[1] === "lt" ? "<" : m[1] === "gt" ? ">" : m[1] === "amp" ? "&" : m[1] === "quot" ? '"' : "?";
      i += m[0].length;
      continue;
    }
    if (c === ">")
      return { error: `Bad Request: can't parse entities: Unexpected ">" at byte offset ${bytes(i)}` };
    text += c;
    i++;
  }
  if (stack.length)
    return {
      error: `Bad Request: can't parse entities: Can't find end tag corresponding to start tag "${stack.at(-1)}"`,
    };
  return { text };
}
