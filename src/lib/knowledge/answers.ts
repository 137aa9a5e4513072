import "server-only";
import { z } from "zod";
import type { ActionState, TenantContext } from "@/lib/auth/guard";
import { audit } from "@/lib/db/queries/audit";
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

function requireEditor(ctx: TenantContext) {
  if (ctx.role === "viewer")
    throw new AppError("forbidden", "Viewers can look at the knowledge, not change it.");
}

export async function addCuratedAnswer(
  ctx: TenantContext,
  input: z.infer<typeof answerSchema>,
): Promise<ActionState> {
  requireEditor(ctx);
  const tenantId = ctx.tenant.id;
  await ctx.db.forTenant(tenantId, async (tx) => {
    const row = await insertAnswer(tx, { tenantId, ...input, createdBy: ctx.user.id });
    await audit(tx, {
      tenantId,
      actor: ctx.user,
      action: "knowledge.answer_added",
      target: row.id,
      details: { questions: input.questions.length },
    });
  });
  return { ok: true, message: "Answer saved.", values: {} };
}

export async function deleteCuratedAnswer(ctx: TenantContext, id: string): Promise<ActionState> {
  requireEditor(ctx);
  const tenantId = ctx.tenant.id;
  return ctx.db.forTenant(tenantId, async (tx) => {
    const row = await deleteAnswer(tx, id);
    if (!row) throw new AppError("not_found", "This answer does not exist.");
    await audit(tx, { tenantId, actor: ctx.user, action: "knowledge.answer_deleted", target: id });
    return { ok: true, message: "Answer deleted." };
  });
}
