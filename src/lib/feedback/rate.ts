import "server-only";
import { z } from "zod";
import type { DbHandle } from "../db";
import { findVisitorAnswer, upsertFeedback } from "../db/queries/feedback";
import { AppError } from "../errors";
import { feedbackEvents } from "../leads/notify";

// A visitor rates one answer of their own conversation: up or down, with an optional one-line comment on
// "down". Rating again replaces the earlier rating.

export const FEEDBACK_COMMENT_MAX = 300;

const bodySchema = z.object({
  messageId: z.uuid(),
  rating: z.enum(["up", "down"]),
  comment: z.string().max(2000).optional(),
});

export async function rateAnswer(
  db: DbHandle,
  req: { tenantId: string; visitorId: string; body: unknown },
): Promise<void> {
  const parsed = bodySchema.safeParse(req.body);
  if (!parsed.success) {
    const fieldErrors: Record<string, string[]> = {};
    for (const issue of parsed.error.issues) fieldErrors[String(issue.path[0] ?? "body")] = [issue.message];
    throw new AppError("invalid_input", "The rating is not valid.", { fieldErrors });
  }
  const { messageId, rating } = parsed.data;
  // One line: newlines become spaces. A thumbs-up carries no comment.
  const comment =
    rating === "down" ? (parsed.data.comment ?? "").replaceAll("\u0000", "").replace(/\s+/g, " ").trim() : "";
  if (comment.length > FEEDBACK_COMMENT_MAX)
    throw new AppError("invalid_input", `Comments can be at most ${FEEDBACK_COMMENT_MAX} characters.`, {
      fieldErrors: { comment: ["too_long"] },
    });
  await db.forTenant(req.tenantId, async (tx) => {
    const answer = await findVisitorAnswer(tx, messageId, req.visitorId);
    if (!answer) throw new AppError("not_found", "This answer is not available.");
    const row = { tenantId: req.tenantId, conversationId: answer.conversationId, messageId, rating, comment };
    await upsertFeedback(tx, row);
    await feedbackEvents(tx, req.tenantId, row);
  });
}
