import "server-only";
import { and, eq, sql } from "drizzle-orm";
import { isUuid } from "@/shared/parse";
import { rowsOf, type TenantTx } from "../client";
import { conversations, messageFeedback, messages, type Rating } from "../schema";

// Visitors' ratings of answers. Tenant path only.

/**
 * The answer a visitor may rate: an assistant message of one of their own conversations (RLS bounds the
 * tenant, the visitor id bounds the conversation). Anything else is simply not found.
 */
export async function findVisitorAnswer(
  tx: TenantTx,
  messageId: string,
  visitorId: string,
): Promise<{ id: string; conversationId: string } | null> {
  if (!isUuid(messageId)) return null;
  const [row] = await tx
    .select({ id: messages.id, conversationId: messages.conversationId })
    .from(messages)
    .innerJoin(conversations, eq(conversations.id, messages.conversationId))
    .where(
      and(eq(messages.id, messageId), eq(messages.role, "assistant"), eq(conversations.visitorId, visitorId)),
    )
    .limit(1);
  return row ?? null;
}

/** Stores a rating; rating the same answer again replaces the rating and the comment. */
export async function upsertFeedback(
  tx: TenantTx,
  input: { tenantId: string; conversationId: string; messageId: string; rating: Rating; comment: string },
): Promise<void> {
  await tx
    .insert(messageFeedback)
    .values(input)
    .onConflictDoUpdate({
      target: messageFeedback.messageId,
      set: { rating: input.rating, comment: input.comment, updatedAt: new Date() },
    });
}

export type AnswerRating = { rating: Rating; comment: string; at: Date };

/** The ratings of one conversation's answers, by answer id, for the transcript. */
export async function ratingsOfConversation(
  tx: TenantTx,
  tenantId: string,
  conversationId: string,
): Promise<Map<string, AnswerRating>> {
  if (!isUuid(conversationId)) return new Map();
  const rows = await tx
    .select()
    .from(messageFeedback)
    .where(and(eq(messageFeedback.tenantId, tenantId), eq(messageFeedback.conversationId, conversationId)));
  return new Map(rows.map((r) => [r.messageId, { rating: r.rating, comment: r.comment, at: r.updatedAt }]));
}

export type Satisfaction = { up: number; down: number; rate: number | null };

/** Ratings given in [since, until): thumbs up over all ratings, null when there are none. */
export async function satisfaction(
  tx: TenantTx,
  tenantId: string,
  range: { since: Date; until: Date },
): Promise<Satisfaction> {
  const [row] = await rowsOf<{ up: number; down: number }>(
    tx,
    sql`select count(*) filter (where rating = 'up')::int as up, count(*) filter (where rating = 'down')::int as down
        from message_feedback
        where tenant_id = ${tenantId} and updated_at >= ${range.since.toISOString()}::timestamptz
          and updated_at < ${range.until.toISOString()}::timestamptz`,
  );
  const up = Number(row?.up ?? 0);
  const down = Number(row?.down ?? 0);
  return { up, down, rate: up + down > 0 ? up / (up + down) : null };
}
