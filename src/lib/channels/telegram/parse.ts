import "server-only";
import { z } from "zod";

// One Bot API Update (https://core.telegram.org/bots/api#update): at most one of its optional fields is set.
// The bot answers `message`, `edited_message` and `callback_query`; every other kind (channel posts, member
// changes, inline queries …) is null, acknowledged and dropped. Messages without text are kept as media or
// unsupported so the customer gets a polite answer instead of silence.

export type TgMediaKind =
  | "photo"
  | "voice"
  | "audio"
  | "video"
  | "video_note"
  | "document"
  | "sticker"
  | "animation";

type TgBase = {
  /** Increasing per bot: what Telegram's redeliveries repeat and the dedupe keys on. */
  updateId: number;
  chatId: number;
  chatType: "private" | "group" | "supergroup" | "channel";
  from: { id: number; firstName: string; username: string | null; languageCode: string | null } | null;
  /** Unix seconds. */
  date: number;
};

export type TgInbound = TgBase &
  (
    | { kind: "text"; messageId: number; text: string; edited: boolean }
    | { kind: "media"; messageId: number; media: TgMediaKind; caption: string | null; edited: boolean }
    /** A tap on one of our inline buttons; it must be answered (answerCallbackQuery) to stop the spinner. */
    | {
        kind: "callback";
        callbackId: string;
        messageId: number | null;
        data: string | null;
        /** The tapped button's text, read from the keyboard of the message it was on (when Telegram sends it). */
        label: string | null;
      }
    /** Location, contact, poll, dice, service messages …: the type is the field Telegram set. */
    | { kind: "unsupported"; messageId: number; type: string; edited: boolean }
  );

const user = z.object({
  id: z.number().int(),
  is_bot: z.boolean().optional(),
  first_name: z.string(),
  username: z.string().nullish(),
  language_code: z.string().nullish(),
});

const chat = z.object({ id: z.number().int(), type: z.enum(["private", "group", "supergroup", "channel"]) });

const message = z
  .object({
    message_id: z.number().int(),
    date: z.number().int(),
    chat,
    from: user.nullish(),
    text: z.string().nullish(),
    caption: z.string().nullish(),
  })
  .loose();

const update = z.object({
  update_id: z.number().int(),
  message: message.nullish(),
  edited_message: message.nullish(),
  callback_query: z
    .object({
      id: z.string(),
      from: user,
      message: z
        .object({
          message_id: z.number().int(),
          date: z.number().int(),
          chat,
          reply_markup: z
            .object({
              inline_keyboard: z.array(
                z.array(z.object({ text: z.string(), callback_data: z.string().nullish() }).loose()),
              ),
            })
            .nullish()
            .catch(null),
        })
        .loose()
        .nullish(),
      data: z.string().nullish(),
    })
    .nullish(),
});

const MEDIA: readonly TgMediaKind[] = [
  "photo",
  "voice",
  "audio",
  "video",
  "video_note",
  "document",
  "sticker",
  "animation",
];

// The fields every message has; the first other field set names what an unsupported message carried.
const COMMON = new Set([
  "message_id",
  "message_thread_id",
  "date",
  "chat",
  "from",
  "sender_chat",
  "edit_date",
  "reply_to_message",
  "forward_origin",
  "is_topic_message",
  "entities",
  "caption_entities",
  "via_bot",
  "author_signature",
  "has_protected_content",
  "link_preview_options",
  "reply_markup",
  "is_from_offline",
  "sender_boost_count",
  "external_reply",
  "quote",
  "media_group_id",
  "has_media_spoiler",
  "show_caption_above_media",
  "effect_id",
]);

const person = (u: z.infer<typeof user> | null | undefined): TgBase["from"] =>
  u
    ? {
        id: u.id,
        firstName: u.first_name,
        username: u.username ?? null,
        languageCode: u.language_code ?? null,
      }
    : null;

/** The update as the bot sees it, or null when it is not one the bot answers (or not an update at all). */
export function parseTelegramUpdate(json: unknown): TgInbound | null {
  const u = update.safeParse(json);
  if (!u.success) return null;
  const { update_id: updateId, callback_query: cb } = u.data;
  const m = u.data.message ?? u.data.edited_message;
  if (m) {
    const edited = !u.data.message;
    const base: TgBase = {
      updateId,
      chatId: m.chat.id,
      chatType: m.chat.type,
      from: person(m.from),
      date: m.date,
    };
    if (typeof m.text === "string")
      return { ...base, kind: "text", messageId: m.message_id, text: m.text, edited };
    const media = MEDIA.find((k) => m[k] !== undefined && m[k] !== null);
    if (media)
      return { ...base, kind: "media", messageId: m.message_id, media, caption: m.caption ?? null, edited };
    const type = Object.keys(m).find((k) => !COMMON.has(k) && k !== "text" && k !== "caption") ?? "unknown";
    return { ...base, kind: "unsupported", messageId: m.message_id, type, edited };
  }
  if (cb) {
    return {
      updateId,
      chatId: cb.message?.chat.id ?? cb.from.id,
      chatType: cb.message?.chat.type ?? "private",
      from: person(cb.from),
      date: cb.message?.date ?? 0,
      kind: "callback",
      callbackId: cb.id,
      messageId: cb.message?.message_id ?? null,
      data: cb.data ?? null,
      label:
        (cb.data &&
          cb.message?.reply_markup?.inline_keyboard.flat().find((b) => b.callback_data === cb.data)?.text) ||
        null,
    };
  }
  return null;
}
