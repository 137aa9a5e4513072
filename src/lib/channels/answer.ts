import "server-only";
import { isPersonRequest } from "../../shared/live-words";
import { CHAT_MESSAGE_MAX } from "../../shared/message";
import { runTurn } from "../chat/run-turn";
import { type ConnectionRow, getConnection } from "../db/queries/channels";
import {
  type ContactRow,
  claimContact,
  ensureContact,
  finishInbound,
  type InboundRow,
  nextPendingInbound,
  releaseContact,
  renewContact,
  updateContact,
} from "../db/queries/channels-messages";
import { getOwnTenant, type TenantRow } from "../db/queries/tenants";
import type { OutboundReply } from "../db/schema";
import { isAppError } from "../errors";
import { log } from "../log";
import { queueReplies } from "../outbox";
import { processQueue } from "../queue";
import { isActionId } from "./actions";
import { adapterFor } from "./adapter";
import { askForPerson } from "./answer-live";
import { inboundText } from "./buttons";
import { answerReplies, collector, type Outcome } from "./collect";
import { decisionReply } from "./decide";
import { type ChannelDeps, SEND_SAFETY_SECONDS, turnDeps } from "./deps";
import type { InboundJob } from "./jobs";
import { replyOffer, typingIndicator } from "./reply-format";
import { sendBatch } from "./send";
import { takeTap } from "./taps";
import { channelWords, isStartWord, isStopWord } from "./words";

// The inbound job: one person's pending messages answered one at a time, oldest first (by the time they sent
// them, so deliveries that arrived out of order are answered in order). The contact row is claimed for a
// lease while its messages are answered; a job that finds it claimed leaves the work to the holder, which
// looks again after letting go, so a message that arrived meanwhile is never left behind. A worker that died
// mid-answer loses the claim when the lease runs out and pg-boss retries its job.
//
// Each message becomes the widget's own chat turn (same limits, budget, packs, storage, live takeover) into
// a sink that gathers the answer; the answer is stored in the outbox as Markdown with the buttons a first
// answer offers (src/lib/outbox) in the same transaction that marks the message answered, and the sender
// formats it for the channel (send.ts). A message longer than the widget allows is cut rather than refused.
// While a person of the business has the conversation (or it waits for one) the turn only stores the message
// for their console and nothing is sent back; a plain request for a person, or the assistant offering one,
// opens a live request (answer-live.ts).

const LEASE_MS = 180_000;

type Claimed = { conn: ConnectionRow; address: string };

/**
 * `lastTry`: pg-boss will not retry this job again. A message that still fails then (other than for a limit,
 * which only delays it) is marked failed, so one message that cannot be answered never holds back the
 * person's later ones.
 */
export async function answerContact(
  deps: ChannelDeps,
  job: InboundJob,
  opts: { lastTry?: boolean } = {},
): Promise<void> {
  const { db } = deps;
  for (;;) {
    const claimed = await db.forTenant(job.tenantId, async (tx): Promise<Claimed | null> => {
      const next = await nextPendingInbound(tx, job.connectionId, job.contact);
      const conn = next?.address ? await getConnection(tx, job.connectionId) : null;
      if (!next?.address || !conn) return null;
      const contact = await ensureContact(tx, {
        tenantId: job.tenantId,
        connectionId: conn.id,
        address: next.address,
        visitorId: job.contact,
        channel: conn.channel,
      });
      return (await claimContact(tx, conn.id, contact.address, LEASE_MS))
        ? { conn, address: contact.address }
        : null;
    });
    if (!claimed) return;
    try {
      await drain(deps, job, claimed, opts.lastTry ?? false);
    } finally {
      await db.forTenant(job.tenantId, (tx) => releaseContact(tx, claimed.conn.id, claimed.address));
    }
    // A message stored while this worker was letting go found the contact claimed; it is answered here.
  }
}

async function drain(
  deps: ChannelDeps,
  job: InboundJob,
  { conn, address }: Claimed,
  lastTry: boolean,
): Promise<void> {
  for (;;) {
    const next = await deps.db.forTenant(job.tenantId, async (tx) => {
      const inbound = await nextPendingInbound(tx, conn.id, job.contact);
      if (!inbound) return null;
      await renewContact(tx, conn.id, address, LEASE_MS);
      const tenant = await getOwnTenant(tx, job.tenantId);
      const contact = await ensureContact(tx, {
        tenantId: job.tenantId,
        connectionId: conn.id,
        address,
        visitorId: job.contact,
        channel: conn.channel,
      });
      return tenant ? { inbound, tenant, contact } : null;
    });
    if (!next) return;
    try {
      await answerOne(deps, conn, next.tenant, next.contact, next.inbound);
    } catch (err) {
      if (!lastTry || (isAppError(err) && err.code === "rate_limited")) throw err;
      log().error({ err, connectionId: conn.id }, "a channel message could not be answered");
      await deps.db.forTenant(job.tenantId, (tx) => finishInbound(tx, next.inbound.id, "failed"));
    }
  }
}

async function answerOne(
  deps: ChannelDeps,
  conn: ConnectionRow,
  tenant: TenantRow,
  contact: ContactRow,
  inbound: InboundRow,
): Promise<void> {
  const words = channelWords(tenant.bot.language);
  // A tapped button is read as what it stands for: a starter's text, or the words asking for a person.
  const text = inboundText(tenant.bot, inbound.body);
  const say = (t: string): OutboundReply[] => [{ markdown: t }];
  // A tap acknowledged the channel's way (Telegram: the spinner stopped, the keyboard removed); a second tap
  // of the same buttons is not answered.
  const firstTap = await takeTap(deps, adapterFor(conn.channel), conn, contact, inbound);
  let outcome: Outcome;
  if (!firstTap) {
    outcome = { status: "skipped", reply: [] };
  } else if (inbound.kind === "text" && isStopWord(text)) {
    outcome = contact.optedOutAt
      ? { status: "skipped", reply: [] }
      : { status: "done", reply: say(words.optedOut), optedOutAt: new Date() };
  } else if (contact.optedOutAt) {
    outcome =
      inbound.kind === "text" && isStartWord(text)
        ? { status: "done", reply: say(words.optedIn), optedOutAt: null }
        : { status: "skipped", reply: [] };
  } else if (isActionId(inbound.body?.button)) {
    // A confirmation card's button: decided by its id, never read as words (decide.ts).
    outcome = await decisionReply(deps, conn, tenant, contact, inbound, inbound.body.button);
  } else if (inbound.kind !== "text" || !text) {
    outcome = { status: "done", reply: say(words.unsupported) };
  } else {
    const asked = isPersonRequest(text) ? await askFor(deps, tenant, contact, inbound) : null;
    // Nobody can take it: like the widget's menu, the request itself is not a message for the assistant.
    outcome =
      asked && !asked.live
        ? { status: "done", reply: say(asked.text) }
        : await turnReply(deps, conn, tenant, contact, inbound, text.slice(0, CHAT_MESSAGE_MAX));
    if (asked?.live) outcome.reply.push(...say(asked.text));
  }
  const queue = outcome.reply.length > 0 ? await processQueue() : null;
  if (outcome.reply.length > 0 && !queue) throw new Error("the job queue is not running");
  const send = await deps.db.forTenant(tenant.id, async (tx) => {
    await updateContact(tx, conn.id, contact.address, {
      // The window counts from the person's latest message, whatever order deliveries came in.
      lastInboundAt:
        contact.lastInboundAt && contact.lastInboundAt > inbound.sentAt
          ? contact.lastInboundAt
          : inbound.sentAt,
      ...(outcome.optedOutAt !== undefined ? { optedOutAt: outcome.optedOutAt } : {}),
    });
    await finishInbound(tx, inbound.id, outcome.status);
    return queueReplies(tx, queue, {
      tenantId: tenant.id,
      conversationId: contact.conversationId,
      connectionId: conn.id,
      replies: outcome.reply,
      startAfterSeconds: deps.sendJobDelaySeconds ?? SEND_SAFETY_SECONDS,
    });
  });
  // Sent while this person is still held, so answers go out in the order of the questions; what fails for
  // now is left to the send job.
  if (send) await sendBatch(deps, send, false);
}

async function turnReply(
  deps: ChannelDeps,
  conn: ConnectionRow,
  tenant: TenantRow,
  contact: ContactRow,
  inbound: InboundRow,
  message: string,
): Promise<Outcome> {
  const words = channelWords(tenant.bot.language);
  const adapter = adapterFor(conn.channel);
  const { got, sink } = collector(typingIndicator(deps, adapter, conn, contact, inbound));
  try {
    // The widget's turn and limits (per person, the person standing in for an address, and per business).
    await runTurn(
      turnDeps(deps),
      {
        tenant,
        visitorId: inbound.contact,
        conversationId: contact.conversationId,
        message,
        origin: conn.channel,
        pageUrl: "",
        locale: tenant.bot.language ?? "",
        // Where the channel can carry a card's two buttons, a pack that needs the person's yes asks for it.
        buttons: adapter.limits.choices >= 2,
      },
      sink,
    );
  } catch (err) {
    // A limit was reached (the person's or the business's per minute, or every stream slot is busy): try
    // again shortly (pg-boss's retry), the message waits.
    if (isAppError(err) && err.code === "rate_limited") throw err;
    if (!isAppError(err)) throw err;
    log().info({ tenantId: tenant.id, code: err.code }, "channel turn refused");
    return { status: "done", reply: [{ markdown: words.unavailable }] };
  }
  // Stored for the person who has the conversation, who answers from the console.
  if (got.live) return { status: "done", reply: [] };
  // The sources go with the answer, as the widget's done event carries them (none when it cited nothing).
  const offer = got.text.trim() ? await replyOffer(deps, tenant, contact) : null;
  const reply = answerReplies(adapter, tenant, contact, got, offer, deps.env.MICHI_AUTH_SECRET);
  if (reply.length === 0)
    return { status: got.failed ? "failed" : "done", reply: [{ markdown: words.unavailable }] };
  // The answer is stored: a failed live request must not run the turn again (the Inbox has the hand-off).
  const asked = got.handoff
    ? await askFor(deps, tenant, contact, inbound).catch((err) => {
        log().error({ err, tenantId: tenant.id }, "a channel live request could not be opened");
        return null;
      })
    : null;
  if (asked) reply.push({ markdown: asked.text });
  return { status: "done", reply };
}

const askFor = (deps: ChannelDeps, tenant: TenantRow, contact: ContactRow, inbound: InboundRow) =>
  askForPerson(deps, {
    tenantId: tenant.id,
    language: tenant.bot.language,
    visitorId: inbound.contact,
    conversationId: contact.conversationId,
  });
