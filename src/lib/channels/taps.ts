import "server-only";
import type { ConnectionRow } from "../db/queries/channels";
import { type ContactRow, type InboundRow, markKeyboardRemoved } from "../db/queries/channels-messages";
import type { ChannelAdapter } from "./adapter-types";
import type { ChannelDeps } from "./deps";

// A tap on a Telegram inline keyboard (a starter or "Talk to a person"). The keyboard would stay under its
// answer after a tap, so a second tap asked the same thing again and got a second answer. What Telegram bots
// commonly do is answer the callback and then remove (or replace) the keyboard with editMessageReplyMarkup
// (https://core.telegram.org/bots/api#editmessagereplymarkup): the person sees that the choice was taken,
// and there is nothing left to tap twice. Two quick taps can both reach us before the removal shows on the
// person's phone; one person's messages are answered one at a time, so the second tap's removal finds the
// keyboard already gone ("message is not modified") and that tap is not answered. Telegram's own state
// decides, so nothing about the bot's message needs storing here.

/**
 * Acknowledges a tapped button the channel's way and notes a removed keyboard. False when this is a second
 * tap of buttons an earlier tap already used: it gets no answer.
 */
export async function takeTap(
  deps: ChannelDeps,
  adapter: ChannelAdapter,
  conn: ConnectionRow,
  contact: ContactRow,
  inbound: InboundRow,
): Promise<boolean> {
  if (!inbound.body?.button && !inbound.body?.callbackId) return true;
  const tap = await adapter.acknowledgeTap(deps, conn, contact.address, inbound);
  if (tap.buttonsRemoved) {
    await deps.db.forTenant(inbound.tenantId, (tx) => markKeyboardRemoved(tx, inbound.id));
  }
  return tap.answer;
}
