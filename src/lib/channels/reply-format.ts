import "server-only";
import type { ConnectionRow } from "../db/queries/channels";
import { offersPersonButton } from "../db/queries/channels";
import type { ContactRow, InboundRow } from "../db/queries/channels-messages";
import type { TenantRow } from "../db/queries/tenants";
import type { OutboundBody } from "../db/schema";
import type { ReplyOffer } from "../outbox";
import type { ChannelAdapter } from "./adapter-types";
import { hasButtons, offerButtons } from "./buttons";
import type { ChannelDeps } from "./deps";

// How a reply looks on a channel, in the terms every adapter shares: the offer of buttons a first answer
// makes (channel-blind, stored with the reply), the bodies an adapter makes of its converted parts, and the
// typing hint.

/**
 * A first answer to a new person offers the bot's starters, and "Talk to a person" where the business can
 * take one; later answers offer nothing. Which of them fit is the channel's business (formatBodies).
 */
export async function replyOffer(
  deps: Pick<ChannelDeps, "db">,
  tenant: TenantRow,
  contact: ContactRow,
): Promise<ReplyOffer | null> {
  if (contact.lastInboundAt) return null;
  const offerPerson = await deps.db.forTenant(tenant.id, (tx) => offersPersonButton(tx, tenant.id));
  const offer = offerButtons(tenant.bot, offerPerson);
  return hasButtons(offer) ? offer : null;
}

/**
 * The bodies of a reply already converted to the channel's parts: the buttons that fit the channel go on the
 * last part, which `cutLast` first cuts where the channel allows fewer characters beside buttons.
 */
export function formatBodies(
  parts: string[],
  offer: ReplyOffer | null,
  starters: (withPerson: boolean) => number,
  cutLast: (last: string) => string[] = (last) => [last],
): OutboundBody[] {
  if (!offer || !hasButtons(offer) || parts.length === 0) return parts.map((text) => ({ text }));
  if (offer.choices?.length) {
    // A card's buttons stand alone: no starter or person beside Confirm and Cancel.
    const bodies: OutboundBody[] = [...parts.slice(0, -1), ...cutLast(parts.at(-1)!)].map((text) => ({
      text,
    }));
    bodies.at(-1)!.choices = offer.choices;
    return bodies;
  }
  const room = starters(!!offer.person);
  const buttons = (offer.buttons ?? []).slice(0, room);
  const bodies: OutboundBody[] = [...parts.slice(0, -1), ...cutLast(parts.at(-1)!)].map((text) => ({ text }));
  Object.assign(bodies.at(-1)!, {
    ...(buttons.length > 0 ? { buttons } : {}),
    ...(offer.person ? { person: offer.person } : {}),
  });
  return bodies;
}

/** "Typing…" while a tool runs, where the channel has it: once per turn; a failure only costs the hint. */
export function typingIndicator(
  deps: ChannelDeps,
  adapter: ChannelAdapter,
  conn: ConnectionRow,
  contact: ContactRow,
  inbound: InboundRow,
) {
  let sent = false;
  return () => {
    if (sent) return;
    sent = true;
    void adapter.typing(deps, conn, contact.address, inbound).catch(() => {});
  };
}
