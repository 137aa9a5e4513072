import "server-only";
import { z } from "zod";
import { assertRole, auditedTx, type TenantContext } from "@/lib/auth/access";
import { deleteAnswer, insertAnswer } from "@/lib/db/queries/knowledge-answers";
import { AppError } from "@/lib/errors";
import { LANGS } from "@/shared/languages";

// Curated answers: what the business wants said, word for word, when a visitor asks one of these questions.
// A matching curated answer reaches the model before any passage (src/lib/knowledge/search.ts).

export const answerSchema = z.object({
  questions: z
    .string()
    .transform((s) =>
      s
        .split(/\r?\n/)
        .map((q) => q.trim())
        .filter(Boolean),
    )
    .pipe(
      z
        .array(z.string().max(300, { error: "Keep each question under 300 characters." }))
        .min(1, { error: "Write at least one question." })
        .max(10, { error: "At most 10 ways of asking." }),
    ),
  answer: z
    .string()
    .trim()
    .min(1, { error: "Write the answer." })
    .max(2000, { error: "Keep the answer under 2,000 characters." }),
  lang: z.enum(LANGS).default("en"),
});

/** Adds one curated answer; admins and owners only. */
export async function addCuratedAnswer(
  ctx: TenantContext,
  input: z.infer<typeof answerSchema>,
): Promise<{ id: string }> {
  assertRole(ctx, "admin");
  return auditedTx(ctx, async (tx, record) => {
    const row = await insertAnswer(tx, { tenantId: ctx.tenant.id, ...input, createdBy: ctx.user.id });
    await record("knowledge.answer_added", {
      target: row.id,
      details: { questions: input.questions.length },
    });
    return { id: row.id };
  });
}

export async function deleteCuratedAnswer(ctx: TenantContext, id: string): Promise<void> {
  assertRole(ctx, "admin");
  await auditedTx(ctx, async (tx, record) => {
    const row = await deleteAnswer(tx, id);
    if (!row) throw new AppError("not_found", "This answer does not exist.");
    await record("knowledge.answer_deleted", { target: id });
  });
}
