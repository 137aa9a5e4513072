import "server-only";
import { getConnection, noteConnection, touchConnection } from "../db/queries/channels";
import {
  batchParts,
  contactOfConversation,
  earlierQueued,
  expandReply,
  type OutboundRow,
  recordSend,
} from "../db/queries/channels-messages";
import { log } from "../log";
import { OUTBOX_SEND_QUEUE, type SendJob } from "../outbox";
import type { QueueJob } from "../queue";
import { processQueue } from "../queue";
import { adapterFor } from "./adapter";
import type { ChannelDeps } from "./deps";

// Sending the parts of one reply, in order, each once. The inbound worker sends a reply as soon as it is
// stored, while it still holds the person (so replies go out in the order of the questions); the same
// transaction that stored the reply queued a send job for a little later, which finds nothing left to do
// unless that first attempt failed or the process died. A part already sent is skipped, so a failure half-way
// never sends the first half twice. A failure the provider calls temporary (a timeout, 5xx, Meta's rate
// limits) fails the job and pg-boss tries again after its backoff; a lasting one (a blocked number, an
// expired token), or the last try, is recorded on the part and the connection, where the Channels page shows
// it. WhatsApp allows free-form messages only within 24 hours of the person's last message (its adapter's
// window); outside that window nothing is sent and the part says so (no API error loop).
//
// A reply is stored as Markdown (the outbox, src/lib/outbox); the first sender to reach it formats it with
// the channel's adapter into the channel's messages, stored as its pieces, and sends those.

const OUTSIDE_WINDOW_NOTE =
  "A reply was not sent: more than 24 hours have passed since the person last wrote (WhatsApp's window).";
/** Telegram's 429 names its wait; a part is tried at most this often before it is recorded as failed. */
const MAX_ATTEMPTS = 12;
/**
 * A reply waits for the conversation's earlier replies still queued (a person's reply, then the bot's after
 * the hand-back) up to this long; an earlier one stuck longer than that no longer holds later ones back.
 */
const ORDER_WAIT_MS = 10 * 60 * 1000;

/** Whether a batch needs another attempt later, and when the API asked for it (seconds), if it did. */
export type SendOutcome = { again: false } | { again: true; afterSeconds: number | null; reason: string };

/** The send job: a batch's parts still queued; a temporary failure fails the job for pg-boss's retry. */
export async function sendReplyJob(deps: ChannelDeps, job: QueueJob<SendJob>): Promise<void> {
  const outcome = await sendBatch(deps, job.data, job.retryCount >= job.retryLimit);
  if (!outcome.again) return;
  const queue = outcome.afterSeconds !== null ? await processQueue() : null;
  if (queue && outcome.afterSeconds !== null) {
    // The API said how long to wait: a job of its own at that time, this one is done.
    const startAfterSeconds = Math.max(1, outcome.afterSeconds);
    await deps.db.forTenant(job.data.tenantId, (tx) =>
      queue.sendIn(tx, OUTBOX_SEND_QUEUE, job.data, { startAfterSeconds }),
    );
    return;
  }
  throw new Error(outcome.reason);
}

/** Sends a batch's queued parts in order; on the last try a temporary failure is recorded as failed too. */
export async function sendBatch(deps: ChannelDeps, data: SendJob, lastTry: boolean): Promise<SendOutcome> {
  const { tenantId, connectionId, batch } = data;
  const now = deps.now?.() ?? new Date();
  const found = await deps.db.forTenant(tenantId, async (tx) => {
    const conn = await getConnection(tx, connectionId);
    let parts = await batchParts(tx, batch);
    if (conn && parts.some((p) => p.body === null)) {
      const adapter = adapterFor(conn.channel);
      const formatted: OutboundRow[] = [];
      let lost = false;
      for (const p of parts) {
        const rows =
          p.body === null && p.reply
            ? await expandReply(
                tx,
                p,
                adapter.format(p.reply.markdown, p.reply.offer ?? null, p.reply.sources),
              )
            : [p];
        if (rows) formatted.push(...rows);
        else lost = true;
      }
      // Another sender formatted a reply first: its rows as that sender stored them.
      parts = lost ? await batchParts(tx, batch) : formatted;
    }
    const contact = parts[0] ? await contactOfConversation(tx, parts[0].conversationId) : null;
    const waits = parts.some((p) => p.status === "queued") && (await earlierQueued(tx, batch, ORDER_WAIT_MS));
    return conn && contact ? { conn, parts, contact, waits } : null;
  });
  // The connection was removed, or retention deleted the conversation: there is nobody to send to.
  if (!found) return { again: false };
  if (found.waits) return { again: true, afterSeconds: 1, reason: "an earlier reply is still being sent" };
  const { conn, parts, contact } = found;
  const adapter = adapterFor(conn.channel);
  const window = adapter.window;
  const record = (part: OutboundRow, outcome: Parameters<typeof recordSend>[2], error?: string | null) =>
    deps.db.forTenant(tenantId, async (tx) => {
      await recordSend(tx, part.id, outcome);
      if (outcome.status === "sent") await touchConnection(tx, conn.id, "outbound");
      if (error !== undefined) await noteConnection(tx, conn.id, error);
    });
  for (const part of parts) {
    if (part.status !== "queued" || !part.body) continue;
    const windowOpen =
      !window ||
      (contact.lastInboundAt !== null && now.getTime() - contact.lastInboundAt.getTime() < window.ms);
    if (!windowOpen) {
      await record(part, { status: "outside_window", errorCode: window.errorCode }, OUTSIDE_WINDOW_NOTE);
      continue;
    }
    const result = await adapter.send(deps, conn, contact.address, part.body);
    if (result.ok) {
      await record(part, { status: "sent", externalId: result.id }, null);
      continue;
    }
    if (window && result.code === window.errorCode) {
      await record(
        part,
        { status: "outside_window", errorCode: result.code, errorTitle: result.message },
        OUTSIDE_WINDOW_NOTE,
      );
      continue;
    }
    if (result.retryable && !lastTry && part.attempts + 1 < MAX_ATTEMPTS) {
      await record(part, { status: "queued", errorCode: result.code, errorTitle: result.message });
      return {
        again: true,
        afterSeconds: result.retryAfter,
        reason: `sending failed for now (${result.code}): ${result.message}`,
      };
    }
    log().warn(
      { connectionId: conn.id, channel: conn.channel, code: result.code, reason: result.message },
      "channel reply could not be sent",
    );
    await record(
      part,
      { status: "failed", errorCode: result.code, errorTitle: result.message },
      `A reply could not be sent: ${result.message} (${result.code})`,
    );
  }
  return { again: false };
}
