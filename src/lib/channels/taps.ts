import "server-only";
import type { ConnectionRow } from "../db/queries/channels";
import { type ContactRow, type InboundRow, markKeyboardRemoved } from "../db/queries/channels-messages";
import { type ChannelDeps, telegramClientFor } from "./deps";

// A tap on a Telegram inline keyboard (a starter or "Talk to a person"). The keyboard would stay under its
// answer after a tap, so a second tap asked the same thing again and got a second answer. What Telegram bots
// commonly do is answer the callback and then remove (or replace) the keyboard with editMessageReplyMarkup
// (https://core.telegram.org/bots/api#editmessagereplymarkup): the person sees that the choice was taken,
// and there is nothing left to tap twice. Two quick taps can both reach us before the removal shows on the
// person's phone; one person's messages are answered one at a time, so the second tap's removal finds the
// keyboard already gone ("message is not modified") and that tap is not answered. Telegram's own state
// decides, so nothing about the bot's message needs storing here.

/**
 * Stops the button's spinner and removes the tapped keyboard. False when this is a second tap of a keyboard
 * an earlier tap already used: it gets no answer.
 */
export async function takeTap(
  deps: ChannelDeps,
  conn: ConnectionRow,
  contact: ContactRow,
  inbound: InboundRow,
): Promise<boolean> {
  const body = inbound.body;
  if (conn.channel !== "telegram" || !body?.callbackId) return true;
  const client = telegramClientFor(deps, conn);
  // Stops the spinner on the button at once, not after the answer; the answer follows as a message. A
  // failure only leaves the spinner to Telegram's own timeout.
  await client.answerCallbackQuery(body.callbackId);
  // A retry of this tap's job: its own removal already happened, and it must still be answered.
  if (!body.tapped || body.keyboardRemoved) return true;
  const removed = await client.removeKeyboard(contact.address, body.tapped);
  if (removed.ok) {
    await deps.db.forTenant(inbound.tenantId, (tx) => markKeyboardRemoved(tx, inbound.id));
    return true;
  }
  // Any other failure (Telegram away, a message it no longer lets the bot edit) must not cost the person
  // their answer.
  return removed.code !== "not_modified";
}
