import "server-only";
import { randomUUID } from "node:crypto";
import type { TenantTx } from "../db/client";
import { getConnection } from "../db/queries/channels";
import { contactOfConversation, insertOutbound } from "../db/queries/channels-messages";
import { AppError } from "../errors";
import type { JobQueue } from "../queue";
import { CHANNEL_SEND_QUEUE, type SendJob } from "./jobs";
import { toTelegramMessages } from "./telegram/format";
import { toWhatsAppMessages } from "./whatsapp/format";

// What the business's team says in a live conversation that started on WhatsApp or Telegram: a person's reply,
// or the words the widget shows when the person's part ends. It goes out exactly as a bot answer does
// (send.ts): converted to the channel's formatting, split under its limit, stored as the parts of one batch
// and queued for the send job in the caller's transaction, so a reply that is not stored is never sent and a
// stored one is sent once, after the earlier replies of the conversation (send.ts waits for them).

/**
 * Queues `markdown` to the conversation's channel, if it has one; false for a widget conversation. `queue` is
 * the process's job queue (read before the transaction): without it a channel reply cannot be promised.
 */
export async function queueToChannel(
  tx: TenantTx,
  queue: JobQueue | null,
  input: { tenantId: string; conversationId: string; markdown: string },
): Promise<boolean> {
  const contact = await contactOfConversation(tx, input.conversationId);
  const conn = contact ? await getConnection(tx, contact.connectionId) : null;
  if (!contact || !conn) return false;
  if (!queue) {
    throw new AppError(
      "unavailable",
      "Replies to WhatsApp and Telegram cannot be sent right now. Try again.",
    );
  }
  const parts =
    conn.channel === "whatsapp" ? toWhatsAppMessages(input.markdown) : toTelegramMessages(input.markdown);
  const batch = randomUUID();
  await insertOutbound(
    tx,
    parts.map((text) => ({
      tenantId: input.tenantId,
      connectionId: conn.id,
      conversationId: input.conversationId,
      batch,
      body: { text },
    })),
  );
  const job: SendJob = { tenantId: input.tenantId, connectionId: conn.id, batch };
  await queue.sendIn(tx, CHANNEL_SEND_QUEUE, job, { startAfterSeconds: 0 });
  return true;
}
