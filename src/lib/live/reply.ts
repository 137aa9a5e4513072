import "server-only";
import { z } from "zod";
import { assertRole, auditedTx, type TenantContext } from "../auth/access";
import { insertAgentMessage, lockLiveConversation } from "../db/queries/live-conversations";
import { appendLiveEvent } from "../db/queries/live-events";
import { AppError } from "../errors";
import { queueReplies } from "../outbox";
import { processQueue } from "../queue";
import { callerAgent, conversationGone } from "./agent";
import { wakeLive } from "./bus";
import { claimLocked, liveTargetSchema } from "./takeover";
import { isPersonState, wakeAssigned } from "./transition";

// What a person writes in a live conversation: a reply the visitor reads (stored as a message, rendered with
// the widget's safe Markdown), or an internal note only the business sees (in the live log, never on a
// visitor's stream). On a WhatsApp or Telegram conversation the reply is also queued to the channel, in the
// transaction that stores it (the outbox, src/lib/outbox); a note never is.

export const AGENT_REPLY_MAX = 4000;
export const NOTE_MAX = 2000;

export const agentReplySchema = liveTargetSchema.extend({
  text: z
    .string()
    .trim()
    .min(1, "Write a reply first.")
    .max(AGENT_REPLY_MAX, `A reply is at most ${AGENT_REPLY_MAX} characters.`),
});

export const noteSchema = liveTargetSchema.extend({
  text: z
    .string()
    .trim()
    .min(1, "Write the note first.")
    .max(NOTE_MAX, `A note is at most ${NOTE_MAX} characters.`),
});

/**
 * A person's reply. Replying to a conversation waiting for or with a person that the caller does not have
 * claims it, by the same rule as "Take over" (an owner may take a teammate's; an admin only an unassigned
 * one); one back with the bot refuses (take it over first). Returns the stored message's id.
 */
export async function sendAgentReply(
  ctx: TenantContext,
  input: z.infer<typeof agentReplySchema>,
): Promise<{ messageId: string }> {
  assertRole(ctx, "admin");
  const queue = await processQueue();
  const { id: messageId, wake } = await auditedTx(ctx, async (tx, record) => {
    const c = await lockLiveConversation(tx, input.conversationId);
    if (!c) throw conversationGone();
    if (!isPersonState(c.liveState)) {
      throw new AppError("conflict", "The bot has this conversation. Take it over first.");
    }
    // Replying to a conversation the caller does not have yet claims it, by the claim's own rule.
    const mine = c.liveState === "person" && c.liveAgentId === ctx.user.id;
    const m = { tx, tenantId: ctx.tenant.id, record };
    const claimed = mine ? null : await claimLocked(m, c, ctx);
    const agent = await callerAgent(tx, ctx.user);
    const id = await insertAgentMessage(tx, {
      tenantId: ctx.tenant.id,
      conversationId: c.id,
      agentId: agent.id,
      content: input.text,
    });
    await queueReplies(tx, queue, {
      tenantId: ctx.tenant.id,
      conversationId: c.id,
      // Who joined goes in the same batch as the reply, so a channel shows it first.
      replies: [...(claimed ? [{ markdown: claimed.joined }] : []), { markdown: input.text }],
    });
    // Who wrote when; the words themselves are the conversation's, not the audit log's.
    await record("live.replied", { target: c.id });
    await appendLiveEvent(tx, {
      conversationId: c.id,
      kind: "agent_message",
      data: { messageId: id, text: input.text, agent },
    });
    return { id, wake: claimed?.wake ?? [] };
  });
  wakeAssigned(ctx.tenant.id, [input.conversationId, ...wake]);
  return { messageId };
}

/** An internal note on a conversation: the team reads it in the console, the visitor never does. */
export async function addInternalNote(ctx: TenantContext, input: z.infer<typeof noteSchema>): Promise<void> {
  assertRole(ctx, "admin");
  await auditedTx(ctx, async (tx, record) => {
    const c = await lockLiveConversation(tx, input.conversationId);
    if (!c) throw conversationGone();
    await record("live.noted", { target: c.id });
    await appendLiveEvent(tx, {
      conversationId: c.id,
      kind: "note",
      data: { text: input.text, author: await callerAgent(tx, ctx.user) },
    });
  });
  wakeLive(ctx.tenant.id, input.conversationId);
}
