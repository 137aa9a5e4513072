import "server-only";
import { type ConnectionRow, offersPersonButton } from "../db/queries/channels";
import type { ContactRow, InboundRow } from "../db/queries/channels-messages";
import type { TenantRow } from "../db/queries/tenants";
import type { OutboundBody } from "../db/schema";
import { hasButtons, replyButtons } from "./buttons";
import { type ChannelDeps, telegramClientFor, whatsappClientFor } from "./deps";
import { splitMessage } from "./split";
import { toTelegramMessages } from "./telegram/format";
import { WA_BUTTON_BODY_MAX } from "./whatsapp/api";
import { toWhatsAppMessages } from "./whatsapp/format";

// How a bot answer looks on the channel (answer.ts): its formatting and reply buttons, and the typing hint.

/**
 * The answer in the channel's formatting, split under its limit. A first answer to a new person offers the
 * starters, and "Talk to a person" where the business can take one, as buttons on its last part; on WhatsApp
 * that part is cut under the 1,024 characters a message with buttons may have.
 */
export async function formatReply(
  deps: Pick<ChannelDeps, "db">,
  conn: ConnectionRow,
  tenant: TenantRow,
  contact: ContactRow,
  markdown: string,
): Promise<OutboundBody[]> {
  const wa = conn.channel === "whatsapp";
  const parts = wa ? toWhatsAppMessages(markdown) : toTelegramMessages(markdown);
  if (contact.lastInboundAt || parts.length === 0) return parts.map((text) => ({ text }));
  const offerPerson = await deps.db.forTenant(tenant.id, (tx) => offersPersonButton(tx, tenant.id));
  const buttons = replyButtons(tenant.bot, conn.channel, offerPerson);
  if (!hasButtons(buttons)) return parts.map((text) => ({ text }));
  // The split keeps formatting pairs and links whole in WhatsApp's own syntax as in Markdown.
  const last = parts.pop()!;
  if (wa && last.length > WA_BUTTON_BODY_MAX) parts.push(...splitMessage(last, WA_BUTTON_BODY_MAX));
  else parts.push(last);
  const bodies: OutboundBody[] = parts.map((text) => ({ text }));
  Object.assign(bodies.at(-1)!, buttons);
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
