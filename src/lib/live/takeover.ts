import "server-only";
import { z } from "zod";
import { fill } from "../../shared/fill";
import { langOrEnglish } from "../../shared/languages";
import { LIVE_STRINGS, liveWords } from "../../shared/live-words";
import { assertRole, auditedTx, roleAtLeast, type TenantContext } from "../auth/access";
import { type LiveRow, lockLiveConversation } from "../db/queries/live-conversations";
import { isAgentMember } from "../db/queries/live-presence";
import { AppError } from "../errors";
import { queueReplies } from "../outbox";
import { processQueue } from "../queue";
import { callerAgent, conversationGone, teammateAgent } from "./agent";
import { assertMove, isPersonState, type Mover, moveConversation, wakeAssigned } from "./transition";

// The business's side of a live conversation's state: claim (a person takes it), assign or transfer to a
// teammate, hand back to the bot, close. Each locks the conversation row and moves it through the transition
// table (transition.ts: allowed moves, version bump, audit, live event, whom to wake); what is decided here is
// who may. Admins and owners act; viewers only watch. When the
// person's part ends on a WhatsApp or Telegram conversation, the person there reads what the widget shows.
// Who may take which: as Chatwoot's "Manage all conversations" versus "Manage unassigned & own
// conversations" permissions (chatwoot.com/hc/user-guide/articles/1741923706), an owner may take over or
// move any conversation, a teammate's too; an admin claims or moves only an unassigned one or their own,
// and asks the teammate who has one to transfer it. A change that frees an agent's slot serves the
// waiting queue (transition.ts) in the same transaction.

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
  const queue = await processQueue();
  const wake = await auditedTx(ctx, async (tx, record) => {
    const c = await lockLiveConversation(tx, input.conversationId);
    if (!c) throw conversationGone();
    if (c.liveState === "person" && c.liveAgentId === ctx.user.id) return [];
    const claimed = await claimLocked({ tx, tenantId: ctx.tenant.id, record }, c, ctx);
    // The widget shows who joined from the live event; on WhatsApp and Telegram only a message can say it
    // (nothing is queued for a widget conversation).
    await queueReplies(tx, queue, {
      tenantId: ctx.tenant.id,
      conversationId: c.id,
      replies: [{ markdown: claimed.joined }],
    });
    return claimed.wake;
  });
  wakeAssigned(ctx.tenant.id, wake);
}

/**
 * The claim itself, on a conversation the caller's transaction has locked (a step of a use case, not one:
 * the caller checked the role): the same rule whether a person
 * presses "Take over" or replies to a conversation they do not have yet (reply.ts).
 */
export async function claimLocked(
  m: Mover,
  c: LiveRow,
  ctx: TenantContext,
): Promise<{ wake: string[]; joined: string }> {
  const holder = isPersonState(c.liveState) ? c.liveAgentId : null;
  if (!mayTake(ctx, holder)) {
    throw new AppError(
      "conflict",
      c.liveState === "person"
        ? "A teammate already has this conversation. Ask them (or an owner) to transfer it to you."
        : "This conversation is assigned to a teammate. Ask them (or an owner) to transfer it to you.",
    );
  }
  const agent = await callerAgent(m.tx, ctx.user);
  const wake = await moveConversation(m, c, "claim", { agent });
  // What a person on a channel reads: the caller sends it, in the same batch as anything that must follow it.
  const joined = fill(LIVE_STRINGS[langOrEnglish(ctx.tenant.bot.language)].joined, { name: agent.name });
  return { wake, joined };
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
  const wake = await auditedTx(ctx, async (tx, record) => {
    const c = await lockLiveConversation(tx, input.conversationId);
    if (!c) throw conversationGone();
    const move = c.liveState === "person" ? "transfer" : "assign";
    assertMove(c.liveState, move);
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
    return moveConversation({ tx, tenantId: ctx.tenant.id, record }, c, move, { agent });
  });
  wakeAssigned(ctx.tenant.id, wake);
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
  const wake = await auditedTx(ctx, async (tx, record) => {
    const c = await lockLiveConversation(tx, conversationId);
    if (!c) throw conversationGone();
    const moved = await moveConversation(
      { tx, tenantId: ctx.tenant.id, record },
      c,
      state === "bot" ? "handBack" : "close",
    );
    const words = liveWords(ctx.tenant.bot.language);
    await queueReplies(tx, queue, {
      tenantId: ctx.tenant.id,
      conversationId: c.id,
      replies: [{ markdown: state === "bot" ? words.backToBot : words.closed }],
    });
    return moved;
  });
  wakeAssigned(ctx.tenant.id, wake);
}
