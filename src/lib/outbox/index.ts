import "server-only";
import { randomUUID } from "node:crypto";
import type { TenantTx } from "../db/client";
import { contactOfConversation, insertOutbound } from "../db/queries/channels-messages";
import type { OutboundReply } from "../db/schema";
import { AppError } from "../errors";
import type { JobQueue } from "../queue";

// One outbox for every reply that leaves for a channel: the bot's answer, a person's reply from the console,
// the platform's own words (opted out, waiting for a person, back with the assistant). A reply is stored once,
// as Markdown with the buttons it offers, in the caller's transaction, with the send job that carries it; so
// a reply that is not stored is never sent, and a stored one is sent once, after the conversation's earlier
// replies. Nothing here knows which channel: the sender formats the reply with the channel's adapter when it
// sends it (src/lib/channels/send.ts). Use cases above (live/, channels/) call this; it calls only the db.

export const OUTBOX_SEND_QUEUE = "channel-send";

export type SendJob = { tenantId: string; connectionId: string; batch: string };

/** The buttons a reply offers: starters' texts, and the label of a "Talk to a person" button after them. */
export type ReplyOffer = NonNullable<OutboundReply["offer"]>;

type QueueInput = {
  tenantId: string;
  conversationId: string;
  replies: OutboundReply[];
  /** The conversation's connection when the caller knows it; otherwise looked up from the conversation. */
  connectionId?: string;
  /** When the send job may run (the answering worker sends at once itself and leaves the job the retries). */
  startAfterSeconds?: number;
};

/**
 * Stores `replies` for the conversation's channel and queues their send job; null for a conversation with no
 * channel (the widget's), or nothing to send. `queue` is the process's job queue, read before the
 * transaction: without it a channel reply cannot be promised.
 */
export async function queueReplies(
  tx: TenantTx,
  queue: JobQueue | null,
  input: QueueInput,
): Promise<SendJob | null> {
  const replies = input.replies.filter((r) => r.markdown.trim());
  if (replies.length === 0) return null;
  const connectionId =
    input.connectionId ?? (await contactOfConversation(tx, input.conversationId))?.connectionId;
  if (!connectionId) return null;
  if (!queue) {
    throw new AppError(
      "unavailable",
      "Replies to WhatsApp and Telegram cannot be sent right now. Try again.",
    );
  }
  const batch = randomUUID();
  await insertOutbound(
    tx,
    replies.map((reply) => ({
      tenantId: input.tenantId,
      connectionId,
      conversationId: input.conversationId,
      batch,
      reply,
    })),
  );
  const job: SendJob = { tenantId: input.tenantId, connectionId, batch };
  await queue.sendIn(tx, OUTBOX_SEND_QUEUE, job, { startAfterSeconds: input.startAfterSeconds ?? 0 });
  return job;
}
