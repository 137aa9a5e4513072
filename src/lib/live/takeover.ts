import "server-only";
import { z } from "zod";
import { assertRole, auditedTx, type TenantContext } from "../auth/access";
import { queueToChannel } from "../channels/live";
import { liveWords } from "../channels/live-words";
import { lockLiveConversation, setLiveState } from "../db/queries/live-conversations";
import { appendLiveEvent } from "../db/queries/live-events";
import { isAgentMember, markAssigned } from "../db/queries/live-presence";
import { AppError } from "../errors";
import { processQueue } from "../queue";
import { callerAgent, conversationGone, teammateAgent } from "./agent";
import { wakeLive } from "./bus";

// The business's side of a live conversation's state: claim (a person takes it), assign or transfer to a
// teammate, hand back to the bot, close. Each change locks the conversation row, bumps its live version (so a
// bot answer still streaming is not kept, see michi_finish_turn), is audited with who and when, and is
// appended to the live log before the streams are woken. Admins and owners act; viewers only watch. When the
// person's part ends on a WhatsApp or Telegram conversation, the person there reads what the widget shows.

export const liveTargetSchema = z.object({ conversationId: z.uuid("Not a conversation id.") });
export const assignSchema = liveTargetSchema.extend({ agentId: z.uuid("Not a teammate.") });

/** A person takes a waiting conversation (or one assigned to them): the bot steps back. */
export async function claimConversation(
  ctx: TenantContext,
  input: z.infer<typeof liveTargetSchema>,
): Promise<void> {
  assertRole(ctx, "admin");
  await auditedTx(ctx, async (tx, record) => {
    const c = await lockLiveConversation(tx, input.conversationId);
    if (!c) throw conversationGone();
    if (c.liveState === "person" && c.liveAgentId === ctx.user.id) return;
    const agent = await callerAgent(tx, ctx.user);
    if (c.liveState === "person") {
      throw new AppError(
        "conflict",
        "A teammate already has this conversation. Ask them to transfer it to you.",
      );
    }
    await setLiveState(tx, c.id, {
      state: "person",
      agentId: agent.id,
      requestedAt: c.liveRequestedAt ?? new Date(),
    });
    await markAssigned(tx, ctx.tenant.id, agent.id);
    await record("live.claimed", { target: c.id, details: { from: c.liveState } });
    await appendLiveEvent(tx, { conversationId: c.id, kind: "state", data: { state: "person", agent } });
  });
  wakeLive(ctx.tenant.id, input.conversationId);
}

/**
 * Gives a waiting conversation to a teammate, or transfers one a person has: the teammate must be an admin or
 * owner of the business. A conversation with a person stays with a person, now the teammate.
 */
export async function assignConversation(
  ctx: TenantContext,
  input: z.infer<typeof assignSchema>,
): Promise<void> {
  assertRole(ctx, "admin");
  await auditedTx(ctx, async (tx, record) => {
    const c = await lockLiveConversation(tx, input.conversationId);
    if (!c) throw conversationGone();
    if (c.liveState !== "waiting" && c.liveState !== "person") {
      throw new AppError(
        "conflict",
        "Only a conversation waiting for a person or with a person can be assigned.",
      );
    }
    if (!(await isAgentMember(tx, ctx.tenant.id, input.agentId))) {
      throw new AppError("not_found", "This teammate was not found, or cannot answer visitors.");
    }
    const agent = await teammateAgent(tx, input.agentId);
    await setLiveState(tx, c.id, { state: c.liveState, agentId: agent.id });
    await markAssigned(tx, ctx.tenant.id, agent.id);
    await record(c.liveState === "person" ? "live.transferred" : "live.assigned", {
      target: c.id,
      details: { to: agent.id, from: c.liveAgentId },
    });
    await appendLiveEvent(
      tx,
      c.liveState === "person"
        ? { conversationId: c.id, kind: "state", data: { state: "person", agent } }
        : { conversationId: c.id, kind: "assigned", data: { agent } },
    );
  });
  wakeLive(ctx.tenant.id, input.conversationId);
}

/** The person's part ends: back to the bot, which answers the visitor's next message again. */
export async function handBackConversation(
  ctx: TenantContext,
  input: z.infer<typeof liveTargetSchema>,
): Promise<void> {
  await endLive(ctx, input.conversationId, "bot");
}

/** The person's part ends and the conversation is marked done; a later message is answered by the bot. */
export async function closeLiveConversation(
  ctx: TenantContext,
  input: z.infer<typeof liveTargetSchema>,
): Promise<void> {
  await endLive(ctx, input.conversationId, "closed");
}

async function endLive(ctx: TenantContext, conversationId: string, state: "bot" | "closed"): Promise<void> {
  assertRole(ctx, "admin");
  const queue = await processQueue();
  await auditedTx(ctx, async (tx, record) => {
    const c = await lockLiveConversation(tx, conversationId);
    if (!c) throw conversationGone();
    if (c.liveState !== "waiting" && c.liveState !== "person") {
      throw new AppError("conflict", "No person has this conversation.");
    }
    await setLiveState(tx, c.id, { state, agentId: null, endedAt: new Date() });
    await record(state === "bot" ? "live.handed_back" : "live.closed", {
      target: c.id,
      details: { from: c.liveState },
    });
    await appendLiveEvent(tx, {
      conversationId: c.id,
      kind: "state",
      data: { state, reason: state === "bot" ? "handed_back" : "closed" },
    });
    const words = liveWords(ctx.tenant.bot.language);
    await queueToChannel(tx, queue, {
      tenantId: ctx.tenant.id,
      conversationId: c.id,
      markdown: state === "bot" ? words.backToBot : words.closed,
    });
  });
  wakeLive(ctx.tenant.id, conversationId);
}
