import "server-only";
import type { ConnectionRow } from "../db/queries/channels";
import type { ContactRow, InboundRow } from "../db/queries/channels-messages";
import type { TenantRow } from "../db/queries/tenants";
import type { OutboundBody } from "../db/schema";
import { type ChannelDeps, telegramClientFor, whatsappClientFor } from "./deps";
import { toTelegramMessages } from "./telegram/format";
import { WA_MAX_BUTTONS } from "./whatsapp/api";
import { toWhatsAppMessages } from "./whatsapp/format";

// How a bot answer looks on the channel (answer.ts): its formatting and reply buttons, and the typing hint.

/** The answer in the channel's formatting, split under its limit; a first answer offers the starters. */
export function formatReply(
  conn: ConnectionRow,
  tenant: TenantRow,
  contact: ContactRow,
  markdown: string,
): OutboundBody[] {
  const parts = conn.channel === "whatsapp" ? toWhatsAppMessages(markdown) : toTelegramMessages(markdown);
  const bodies: OutboundBody[] = parts.map((text) => ({ text }));
  const starters = (tenant.bot.starters ?? []).filter((s) => s.trim()).slice(0, WA_MAX_BUTTONS);
  const last = bodies.at(-1);
  // Reply buttons are WhatsApp's; Telegram's inline keyboards would need callback data under 64 bytes.
  if (conn.channel === "whatsapp" && !contact.lastInboundAt && last && starters.length > 0)
    last.buttons = starters;
  return bodies;
}

/**
 * "Typing…" while a tool runs, where the channel has it: WhatsApp's typing indicator (sent with the read
 * receipt of the person's message), Telegram's chat action. Once per turn; a failure only costs the hint.
 */
export function typingIndicator(
  deps: ChannelDeps,
  conn: ConnectionRow,
  contact: ContactRow,
  inbound: InboundRow,
) {
  let sent = false;
  return () => {
    if (sent) return;
    sent = true;
    const call =
      conn.channel === "whatsapp"
        ? whatsappClientFor(deps, conn).markRead(inbound.externalId, { typing: true })
        : telegramClientFor(deps, conn).sendChatAction(contact.address, "typing");
    void call.catch(() => {});
  };
}
