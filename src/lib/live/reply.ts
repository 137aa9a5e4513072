import "server-only";
import { z } from "zod";
import { assertRole, auditedTx, type TenantContext } from "../auth/access";
import { insertAgentMessage, lockLiveConversation, setLiveState } from "../db/queries/live-conversations";
import { appendLiveEvent } from "../db/queries/live-events";
import { markAssigned } from "../db/queries/live-presence";
import { AppError } from "../errors";
import { queueReplies } from "../outbox";
import { processQueue } from "../queue";
import { callerAgent, conversationGone } from "./agent";
import { wakeLive } from "./bus";
import { liveTargetSchema } from "./takeover";

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
 * A person's reply. Replying to a waiting conversation claims it; a conversation another teammate has, or
 * one back with the bot, refuses (claim it first). Returns the stored message's id.
 */
export async function sendAgentReply(
  ctx: TenantContext,
  input: z.infer<typeof agentReplySchema>,
): Promise<{ messageId: string }> {
  assertRole(ctx, "admin");
  const queue = await processQueue();
  const messageId = await auditedTx(ctx, async (tx, record) => {
    const c = await lockLiveConversation(tx, input.conversationId);
    if (!c) throw conversationGone();
    const agent = await callerAgent(tx, ctx.user);
    if (c.liveState === "person" && c.liveAgentId !== agent.id) {
      throw new AppError("conflict", "A teammate has this conversation. Ask them to transfer it to you.");
    }
    if (c.liveState !== "person" && c.liveState !== "waiting") {
      throw new AppError("conflict", "The bot has this conversation. Take it over first.");
    }
    if (c.liveState === "waiting") {
      if (c.liveAgentId && c.liveAgentId !== agent.id) {
        throw new AppError(
          "conflict",
          "This conversation is assigned to a teammate. Ask them to transfer it.",
        );
      }
      await setLiveState(tx, c.id, { state: "person", agentId: agent.id });
      await markAssigned(tx, ctx.tenant.id, agent.id);
      await record("live.claimed", { target: c.id, details: { from: "waiting" } });
      await appendLiveEvent(tx, { conversationId: c.id, kind: "state", data: { state: "person", agent } });
    }
    const id = await insertAgentMessage(tx, {
      tenantId: ctx.tenant.id,
      conversationId: c.id,
      agentId: agent.id,
      content: input.text,
    });
    await queueReplies(tx, queue, {
      tenantId: ctx.tenant.id,
      conversationId: c.id,
      replies: [{ markdown: input.text }],
    });
    // Who wrote when; the words themselves are the conversation's, not the audit log's.
    await record("live.replied", { target: c.id });
    await appendLiveEvent(tx, {
      conversationId: c.id,
      kind: "agent_message",
      data: { messageId: id, text: input.text, agent },
    });
    return id;
  });
  wakeLive(ctx.tenant.id, input.conversationId);
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
