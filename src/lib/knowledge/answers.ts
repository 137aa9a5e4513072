import "server-only";
import { z } from "zod";
import { assertRole, auditedTx, type TenantContext } from "@/lib/auth/access";
import { deleteAnswer, getAnswer, insertAnswer, updateAnswer } from "@/lib/db/queries/knowledge-answers";
import { AppError } from "@/lib/errors";
import { LANGS } from "@/shared/languages";
import { isUuid } from "@/shared/parse";

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

export type AnswerInput = z.infer<typeof answerSchema>;

/** The same questions, answer and language: saving them again changes nothing. */
function sameAnswer(row: { questions: string[]; answer: string; lang: string }, input: AnswerInput): boolean {
  return (
    row.answer === input.answer &&
    row.lang === input.lang &&
    row.questions.length === input.questions.length &&
    row.questions.every((q, i) => q === input.questions[i])
  );
}

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

/**
 * Rewrites one curated answer (its questions, text and language); admins and owners only. `input` is what the
 * form sent: it is checked here, so a caller without the form still gets every field's error at once.
 */
export async function updateCuratedAnswer(
  ctx: TenantContext,
  id: string,
  input: unknown,
): Promise<{ changed: boolean }> {
  assertRole(ctx, "admin");
  const parsed = answerSchema.safeParse(input);
  if (!parsed.success) {
    const fieldErrors: Record<string, string[]> = {};
    for (const issue of parsed.error.issues) {
      const key = String(issue.path[0] ?? "answer");
      fieldErrors[key] = [...(fieldErrors[key] ?? []), issue.message];
    }
    throw new AppError("invalid_input", "The answer could not be saved.", { fieldErrors });
  }
  if (!isUuid(id)) throw new AppError("not_found", "This answer does not exist.");
  const next = parsed.data;
  return auditedTx(ctx, async (tx, record) => {
    const row = await getAnswer(tx, id);
    if (!row) throw new AppError("not_found", "This answer does not exist.");
    if (sameAnswer(row, next)) return { changed: false };
    await updateAnswer(tx, id, next);
    const fields = [
      ...(row.questions.join("\n") !== next.questions.join("\n") ? ["questions"] : []),
      ...(row.answer !== next.answer ? ["answer"] : []),
      ...(row.lang !== next.lang ? ["lang"] : []),
    ];
    await record("knowledge.answer_updated", {
      target: id,
      details: { fields, questions: next.questions.length },
    });
    return { changed: true };
  });
}
