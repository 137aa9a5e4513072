import "server-only";
import { createHash } from "node:crypto";
import { primarySubtag } from "../../shared/languages";
import { personButtonLabel } from "../../shared/live-words";
import type { BotSettings, InboundBody, OutboundBody } from "../db/schema";
import type { ReplyOffer } from "../outbox";
import { STARTER_ID } from "./jobs";
import type { TgButton } from "./telegram/api";
import { buttonTitle, WA_MAX_BUTTONS, type WaButton } from "./whatsapp/api";

// The buttons under a channel answer: the bot's starters, and "Talk to a person" where the business can take
// one (request_human on, or live chat set up). A button's id says what it stands for, so a tap is answered
// from the id, never from its label (which WhatsApp shortens to 20 characters):
// - `starter:<the starter's text>` when it fits the channel's id (WhatsApp: 256 characters; Telegram's
//   callback_data: 64 bytes, which a Japanese starter of 22 characters already fills);
// - `starter#<hash>` when it does not: the tap is answered as the bot's starter with that hash, or, when the
//   business has changed its starters since, as the button's own label;
// - PERSON_ID: opens a live request, exactly as writing the button's words does.
//
// Telegram gets an inline keyboard, not a reply keyboard: it belongs to the answer it came with instead of
// replacing the person's keyboard until removed, and a tap comes back with its id (callback_data), where a
// reply keyboard only sends its label as if typed.

export const PERSON_ID = "live:person";
const STARTER_HASH = "starter#";
/** Meta: a reply button id is at most 256 characters. */
const WA_ID_MAX = 256;
/** Bot API: callback_data is 1-64 bytes. */
export const TG_DATA_MAX_BYTES = 64;

const hashOf = (starter: string) =>
  createHash("sha256").update(starter.trim()).digest("base64url").slice(0, 16);

/** The starters in the bot's language: its own for that language, else the main ones (as the panel does). */
export function channelStarters(bot: BotSettings): string[] {
  const own = bot.startersByLang?.[primarySubtag(bot.language)];
  const list = Array.isArray(own) && own.length > 0 ? own : (bot.starters ?? []);
  return list.map((s) => (typeof s === "string" ? s.trim() : "")).filter(Boolean);
}

/** The buttons a first answer offers, in the bot's language; each channel keeps as many as it has room for. */
export function offerButtons(bot: BotSettings, offerPerson: boolean): ReplyOffer {
  const person = offerPerson ? personButtonLabel(bot.language) : undefined;
  const starters = channelStarters(bot);
  return { ...(starters.length > 0 ? { buttons: starters } : {}), ...(person ? { person } : {}) };
}

export const hasButtons = (body: Pick<OutboundBody, "buttons" | "person" | "choices">) =>
  (body.buttons?.length ?? 0) > 0 || !!body.person || (body.choices?.length ?? 0) > 0;

/** A starter's id, whole when it fits the channel's limit, else by its hash. */
export function starterId(starter: string, fits: (id: string) => boolean): string {
  const whole = `${STARTER_ID}${starter}`;
  return fits(whole) ? whole : `${STARTER_HASH}${hashOf(starter)}`;
}

const fitsWhatsApp = (id: string) => id.length <= WA_ID_MAX;
const fitsTelegram = (id: string) => Buffer.byteLength(id, "utf8") <= TG_DATA_MAX_BYTES;

/** WhatsApp reply buttons for a stored body: at most three, the person's last; a card's choices alone. */
export function whatsappButtons(body: OutboundBody): WaButton[] {
  if (body.choices?.length) return body.choices.slice(0, WA_MAX_BUTTONS);
  const starters = (body.buttons ?? []).slice(0, WA_MAX_BUTTONS - (body.person ? 1 : 0));
  return [
    ...starters.map((s) => ({ id: starterId(s, fitsWhatsApp), title: buttonTitle(s) })),
    ...(body.person ? [{ id: PERSON_ID, title: buttonTitle(body.person) }] : []),
  ];
}

/** Telegram's inline keyboard for a stored body: a starter's whole text on its button, the person's last. */
export function telegramButtons(body: OutboundBody): TgButton[] {
  if (body.choices?.length) return body.choices.map((c) => ({ text: c.title, data: c.id }));
  return [
    ...(body.buttons ?? []).map((s) => ({ text: s, data: starterId(s, fitsTelegram) })),
    ...(body.person ? [{ text: body.person, data: PERSON_ID }] : []),
  ];
}

/**
 * What the person's message says: their text, or for a tapped button what the button stands for (the starter
 * it carries, or the "Talk to a person" words in the bot's language, which open a live request).
 */
export function inboundText(bot: BotSettings, body: InboundBody | null | undefined): string {
  const label = body?.text?.trim() ?? "";
  const id = body?.button;
  if (!id) return label;
  if (id === PERSON_ID) return personButtonLabel(bot.language);
  if (id.startsWith(STARTER_ID)) return id.slice(STARTER_ID.length).trim();
  if (id.startsWith(STARTER_HASH)) {
    const hash = id.slice(STARTER_HASH.length);
    const every = [...(bot.starters ?? []), ...Object.values(bot.startersByLang ?? {}).flat()];
    const found = every.find((s): s is string => typeof s === "string" && hashOf(s) === hash);
    return found?.trim() ?? label;
  }
  // Not one of ours (a template's quick reply, an older keyboard): its label is what the person chose.
  return label || id;
}
