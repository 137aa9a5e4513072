import "server-only";
import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";
import type { Decision } from "../chat/decide-turn";
import type { OutboundReply } from "../db/schema";
import type { ChannelAdapter } from "./adapter-types";
import { channelWords } from "./words";

// A confirmation card on WhatsApp (reply buttons) and Telegram (an inline keyboard): the pack's title and its
// labelled values as text, and two buttons, Confirm and Cancel, whose ids say which stored call they decide.
// A tap is read by that id, never by its label. The id is bound to the call and to the conversation by a MAC
// under the platform's secret: Telegram warns that a client can send callback_data no button of ours carried
// (https://core.telegram.org/bots/api#callbackquery, "data"), so a forged or edited id (another call's, the
// other decision's) is refused before the database is asked; the stored call is then still looked up in the
// tapping person's own conversation (decide-turn.ts), and decided in one conditional update.
//
// The id: `act:<y|n>:<the call's uuid, 22 base64url>:<96-bit MAC, 16 base64url>`, 45 bytes: under Telegram's
// 64 bytes of callback_data and WhatsApp's 256 characters of a reply button id.

const PREFIX = "act:";
const ID = /^act:([yn]):([A-Za-z0-9_-]{22}):([A-Za-z0-9_-]{16})$/;

let derived: { secret: string; key: Buffer } | null = null;
function keyOf(authSecret: string): Buffer {
  if (derived?.secret !== authSecret)
    derived = {
      secret: authSecret,
      key: Buffer.from(hkdfSync("sha256", authSecret, "michi-chat", "channel-action", 32)),
    };
  return derived.key;
}

const uuidToB64 = (uuid: string) => Buffer.from(uuid.replaceAll("-", ""), "hex").toString("base64url");
function b64ToUuid(b64: string): string | null {
  const hex = Buffer.from(b64, "base64url").toString("hex");
  if (hex.length !== 32) return null;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function tagOf(authSecret: string, conversationId: string, callId: string, d: "y" | "n"): string {
  return createHmac("sha256", keyOf(authSecret))
    .update(`${conversationId}\n${callId}\n${d}`)
    .digest()
    .subarray(0, 12)
    .toString("base64url");
}

/** The id of a card's button for one decision of one call in one conversation. */
export function actionId(authSecret: string, conversationId: string, callId: string, decision: Decision) {
  const d = decision === "confirm" ? "y" : "n";
  return `${PREFIX}${d}:${uuidToB64(callId)}:${tagOf(authSecret, conversationId, callId, d)}`;
}

/** Whether a tapped id is a card's button at all (then it is never read as a starter or as words). */
export const isActionId = (id: string | undefined): id is string => !!id?.startsWith(PREFIX);

/**
 * The decision a tapped id stands for in `conversationId`, or null when it is not one this platform made for
 * that conversation (forged, edited, or another person's card).
 */
export function readActionId(
  authSecret: string,
  conversationId: string,
  id: string,
): { callId: string; decision: Decision } | null {
  const m = ID.exec(id);
  const callId = m ? b64ToUuid(m[2]!) : null;
  if (!m || !callId) return null;
  const d = m[1] as "y" | "n";
  const want = Buffer.from(tagOf(authSecret, conversationId, callId, d));
  const got = Buffer.from(m[3]!);
  if (want.length !== got.length || !timingSafeEqual(want, got)) return null;
  return { callId, decision: d === "y" ? "confirm" : "cancel" };
}

type Card = { callId: string; title: string; fields: { label: string; value: string }[] };

const clip = (s: string, max: number) => (s.length <= max ? s : `${s.slice(0, Math.max(1, max - 1))}…`);

/**
 * The card as a reply: its title in bold, one line per labelled value, the note that nothing is sent before
 * Confirm, and the two buttons. Values are shortened until the text fits what the channel allows beside
 * buttons (WhatsApp: 1,024 characters), so the card is always one message with its buttons.
 */
export function cardReply(
  adapter: Pick<ChannelAdapter, "limits">,
  language: string | undefined,
  authSecret: string,
  conversationId: string,
  card: Card,
): OutboundReply {
  const w = channelWords(language);
  // Conversion to the channel's syntax keeps or shortens the text; a margin covers Telegram's escaping.
  const max = Math.min(adapter.limits.buttonBodyMax, 4000) - 24;
  let markdown = "";
  for (const cap of [300, 120, 60, 24, 8]) {
    const lines = card.fields.map((f) => `• ${clip(f.label, 40)}: ${clip(f.value, cap)}`);
    markdown = [`**${clip(card.title, 120)}**`, ...lines, "", `_${w.confirmNote}_`].join("\n");
    if (markdown.length <= max) break;
  }
  markdown = clip(markdown, max);
  return {
    markdown,
    offer: {
      choices: [
        { id: actionId(authSecret, conversationId, card.callId, "confirm"), title: w.confirm },
        { id: actionId(authSecret, conversationId, card.callId, "cancel"), title: w.cancel },
      ],
    },
  };
}
