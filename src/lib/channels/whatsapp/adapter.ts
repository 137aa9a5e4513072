import "server-only";
import { formatDateTime } from "../../../shared/dates";
import type { ConnectionRow } from "../../db/queries/channels";
import type { NewInbound } from "../../db/queries/channels-queue";
import type { ChannelAdapter, ParsedDelivery } from "../adapter-types";
import { hasButtons, whatsappButtons } from "../buttons";
import { whatsappClientFor } from "../deps";
import { channelVisitorId } from "../identity";
import { formatBodies } from "../reply-format";
import { withSources } from "../sources";
import { splitMessage, WHATSAPP_TEXT_MAX } from "../split";
import { WA_BUTTON_BODY_MAX, WA_MAX_BUTTONS } from "./api";
import { toWhatsAppMessages } from "./format";
import { parseWhatsAppWebhook, type WaInbound } from "./parse";
import { verifyWhatsAppHandshake, verifyWhatsAppSignature } from "./verify";

// WhatsApp (Meta's Cloud API) as a channel adapter, assembled from this folder's client, format, parser and
// signature check.

function waBody(m: WaInbound): NewInbound["body"] {
  if (m.kind === "text") return { text: m.text };
  // The id says what the button stands for (buttons.ts reads it when the message is answered).
  if (m.kind === "button") return { text: m.text, button: m.buttonId };
  if (m.kind === "media") return { kind: m.media };
  if (m.kind === "unsupported") return { kind: m.type };
  return { kind: m.kind };
}

function parse(c: ConnectionRow, json: unknown): ParsedDelivery {
  const parsed = parseWhatsAppWebhook(json);
  // An app may serve several numbers: only this connection's own number is read here.
  const ours = (id: string) => !c.settings.phoneNumberId || id === c.settings.phoneNumberId;
  return {
    inbound: parsed.messages
      // A reaction is not a question; it needs no answer.
      .filter((m) => ours(m.phoneNumberId) && m.kind !== "reaction")
      .map((m) => ({
        tenantId: c.tenantId,
        connectionId: c.id,
        externalId: m.id,
        contact: channelVisitorId(whatsapp.visitorPrefix, c.id, m.from),
        address: m.from,
        kind: m.kind === "button" ? "text" : m.kind,
        body: waBody(m),
        sentAt: new Date(m.timestamp * 1000),
      })),
    statuses: parsed.statuses
      .filter((s) => ours(s.phoneNumberId))
      .map((s) => ({
        externalId: s.messageId,
        status: s.status,
        code: s.error ? String(s.error.code) : undefined,
        title: s.error?.title,
      })),
  };
}

export const whatsapp: ChannelAdapter = {
  channel: "whatsapp",
  visitorPrefix: "wa",
  provider: "Meta",
  limits: {
    textMax: WHATSAPP_TEXT_MAX,
    buttonBodyMax: WA_BUTTON_BODY_MAX,
    // Three reply buttons in all, the person's among them.
    starters: (withPerson) => WA_MAX_BUTTONS - (withPerson ? 1 : 0),
    choices: WA_MAX_BUTTONS,
  },
  // Meta's customer-service window, and its "re-engagement message" error outside it.
  window: { ms: 24 * 60 * 60 * 1000, errorCode: "131047" },
  words: { secret: "app secret", storeAgain: "Save the app secret again." },
  describe: () => ({
    status: "Connected.",
    webhookLabel: "Callback URL to paste at Meta (Webhooks)",
    actions:
      "Actions such as bookings wait for the customer's Confirm, a reply button under a card of the values.",
  }),
  verify({ headers, raw }, secret) {
    const header = headers.get("x-hub-signature-256");
    if (!header) return "missing_signature";
    const appSecret = secret("appSecret");
    if (!appSecret) return "secret_unreadable";
    return verifyWhatsAppSignature(raw, header, appSecret) ? null : "bad_signature";
  },
  handshake(query, secret) {
    const token = secret("verifyToken");
    return token ? verifyWhatsAppHandshake(query, token) : null;
  },
  parse,
  format(markdown, offer, sources) {
    // The split keeps formatting pairs and links whole in WhatsApp's own syntax as in Markdown; the part that
    // carries buttons is cut under the 1,024 characters Meta allows beside them.
    return formatBodies(
      toWhatsAppMessages(withSources(markdown, sources)),
      offer,
      whatsapp.limits.starters,
      (last) => (last.length > WA_BUTTON_BODY_MAX ? splitMessage(last, WA_BUTTON_BODY_MAX) : [last]),
    );
  },
  send(api, conn, to, body) {
    const wa = whatsappClientFor(api, conn);
    // A longer part with buttons, stored before the cut above, goes as plain text rather than not at all.
    if (hasButtons(body) && body.text.length <= WA_BUTTON_BODY_MAX) {
      return wa.sendButtons(to, body.text, whatsappButtons(body));
    }
    return wa.sendText(to, body.text);
  },
  // The typing indicator goes with the read receipt of the person's message.
  typing: (api, conn, _to, inbound) =>
    whatsappClientFor(api, conn).markRead(inbound.externalId, { typing: true }),
  // A reply button's tap needs no acknowledgement, and its buttons stay (WhatsApp shows them spent).
  acknowledgeTap: async () => ({ answer: true, buttonsRemoved: false }),
  async check(api, conn, refused, tz) {
    const lines: string[] = [];
    let ok = true;
    const r = await whatsappClientFor(api, conn).checkConnection();
    if (r.ok) {
      lines.push(
        `The access token works for ${r.displayPhoneNumber ?? "this number"}${r.verifiedName ? ` (${r.verifiedName})` : ""}.`,
      );
    } else {
      ok = false;
      lines.push(r.message);
    }
    if (refused) {
      ok = false;
      lines.push(refused);
    }
    const lastAt = conn.lastInboundAt ? formatDateTime(conn.lastInboundAt, { tz }) : null;
    lines.push(
      lastAt
        ? refused
          ? `The last message from Meta that passed the check arrived at ${lastAt}.`
          : `Meta last delivered a message at ${lastAt}.`
        : "No message from Meta has arrived yet. At Meta, check the callback URL and verify token, that the messages field is subscribed, and that the app secret here is the app's (a wrong one makes every delivery fail its signature).",
    );
    return { ok, lines };
  },
  // Meta keeps posting to the callback URL until the app is changed there; the key in it is gone, so every
  // delivery is refused with a 404 and nothing is stored.
  disconnect: async () => {},
};
