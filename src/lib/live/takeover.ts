import "server-only";
import { z } from "zod";
import { liveWords } from "../../shared/live-words";
import { assertRole, auditedTx, roleAtLeast, type TenantContext } from "../auth/access";
import { lockLiveConversation, setLiveState } from "../db/queries/live-conversations";
import { appendLiveEvent } from "../db/queries/live-events";
import { isAgentMember, markAssigned } from "../db/queries/live-presence";
import { AppError } from "../errors";
import { queueReplies } from "../outbox";
import { processQueue } from "../queue";
import { callerAgent, conversationGone, teammateAgent } from "./agent";
import { assignWaiting, wakeAssigned } from "./assign-next";
import { wakeLive } from "./bus";

// The business's side of a live conversation's state: claim (a person takes it), assign or transfer to a
// teammate, hand back to the bot, close. Each change locks the conversation row, bumps its live version (so a
// bot answer still streaming is not kept, see michi_finish_turn), is audited with who and when, and is
// appended to the live log before the streams are woken. Admins and owners act; viewers only watch. When the
// person's part ends on a WhatsApp or Telegram conversation, the person there reads what the widget shows.
// Who may take which: as Chatwoot's "Manage all conversations" versus "Manage unassigned & own
// conversations" permissions (chatwoot.com/hc/user-guide/articles/1741923706), an owner may take over or
// move any conversation, a teammate's too; an admin claims or moves only an unassigned one or their own,
// and asks the teammate who has one to transfer it. A change that frees an agent's slot serves the
// waiting queue (assign-next.ts) in the same transaction.

/** Whether the caller may take or move a conversation that `agentId` (someone, or nobody) has. */
function mayTake(ctx: TenantContext, agentId: string | null): boolean {
  return agentId === null || agentId === ctx.user.id || roleAtLeast(ctx.role, "owner");
}

export const liveTargetSchema = z.object({ conversationId: z.uuid("Not a conversation id.") });
export const assignSchema = liveTargetSchema.extend({ agentId: z.uuid("Not a teammate.") });

/**
 * A person takes a conversation: unassigned, or assigned to them (an owner also one a teammate has, which
 * frees the teammate's slot). The bot steps back.
 */
export async function claimConversation(
  ctx: TenantContext,
  input: z.infer<typeof liveTargetSchema>,
): Promise<void> {
  assertRole(ctx, "admin");
  const assigned = await auditedTx(ctx, async (tx, record) => {
    const c = await lockLiveConversation(tx, input.conversationId);
    if (!c) throw conversationGone();
    if (c.liveState === "person" && c.liveAgentId === ctx.user.id) return [];
    const agent = await callerAgent(tx, ctx.user);
    // An agent id left on a conversation the bot has again means nothing: hand back and close clear it.
    const holder = c.liveState === "waiting" || c.liveState === "person" ? c.liveAgentId : null;
    if (!mayTake(ctx, holder)) {
      throw new AppError(
        "conflict",
        c.liveState === "person"
          ? "A teammate already has this conversation. Ask them (or an owner) to transfer it to you."
          : "This conversation is assigned to a teammate. Ask them (or an owner) to transfer it to you.",
      );
    }
    await setLiveState(tx, c.id, {
      state: "person",
      agentId: agent.id,
      requestedAt: c.liveRequestedAt ?? new Date(),
    });
    await markAssigned(tx, ctx.tenant.id, agent.id);
    await record("live.claimed", {
      target: c.id,
      details: { from: c.liveState, ...(holder && holder !== agent.id ? { takenFrom: holder } : {}) },
    });
    await appendLiveEvent(tx, { conversationId: c.id, kind: "state", data: { state: "person", agent } });
    return holder && holder !== agent.id ? assignWaiting(tx, ctx.tenant.id, record) : [];
  });
  wakeLive(ctx.tenant.id, input.conversationId);
  wakeAssigned(ctx.tenant.id, assigned);
}

/**
 * Gives a waiting conversation to a teammate, or transfers one a person has: the teammate must be an admin or
 * owner of the business. A conversation with a person stays with a person, now the teammate. Whoever had it
 * has a slot free again, which the waiting queue takes.
 */
export async function assignConversation(
  ctx: TenantContext,
  input: z.infer<typeof assignSchema>,
): Promise<void> {
  assertRole(ctx, "admin");
  const assigned = await auditedTx(ctx, async (tx, record) => {
    const c = await lockLiveConversation(tx, input.conversationId);
    if (!c) throw conversationGone();
    if (c.liveState !== "waiting" && c.liveState !== "person") {
      throw new AppError(
        "conflict",
        "Only a conversation waiting for a person or with a person can be assigned.",
      );
    }
    if (!mayTake(ctx, c.liveAgentId)) {
      throw new AppError(
        "conflict",
        "A teammate has this conversation. Only they (or an owner) can give it to someone else.",
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
    return c.liveAgentId && c.liveAgentId !== agent.id ? assignWaiting(tx, ctx.tenant.id, record) : [];
  });
  wakeLive(ctx.tenant.id, input.conversationId);
  wakeAssigned(ctx.tenant.id, assigned);
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
  const assigned = await auditedTx(ctx, async (tx, record) => {
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
    await queueReplies(tx, queue, {
      tenantId: ctx.tenant.id,
      conversationId: c.id,
      replies: [{ markdown: state === "bot" ? words.backToBot : words.closed }],
    });
    return c.liveAgentId ? assignWaiting(tx, ctx.tenant.id, record) : [];
  });
  wakeLive(ctx.tenant.id, conversationId);
  wakeAssigned(ctx.tenant.id, assigned);
}
