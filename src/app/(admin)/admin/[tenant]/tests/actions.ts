"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { tenantAction } from "@/lib/auth/guard";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { processQueue } from "@/lib/queue";
import { runTestQuestionsNow } from "@/lib/test-questions/jobs";
import {
  addTestQuestion,
  deleteTestQuestion,
  importTestQuestions,
  seedTestQuestions,
  updateTestQuestion,
} from "@/lib/test-questions/manage";

// The Test questions page's changes: admins and owners only (checked again in the use cases); viewers read.

const refresh = (slug: string) => revalidatePath(`/admin/${slug}/tests`);

// The fields as the form sends them; the use case checks them and names every bad one.
const fields = z.object({
  question: z.string().max(5_000).default(""),
  citeUrl: z.string().max(2_000).default(""),
  pack: z.string().max(100).default(""),
  mustContain: z.string().max(10_000).default(""),
  mustNotContain: z.string().max(10_000).default(""),
  sayUnknown: z.string().max(10).optional(),
  noUnsupportedFigures: z.string().max(10).optional(),
});

export const addTestQuestionAction = tenantAction("admin", fields, async (ctx, input) => {
  await addTestQuestion(ctx, input);
  refresh(ctx.tenant.slug);
  return { ok: true, message: "Test question added.", values: {} };
});

export const updateTestQuestionAction = tenantAction(
  "admin",
  fields.extend({ questionId: z.string().max(100) }),
  async (ctx, { questionId, ...input }) => {
    const { changed } = await updateTestQuestion(ctx, questionId, input);
    if (!changed) return { ok: true, message: "No changes to save." };
    refresh(ctx.tenant.slug);
    return { ok: true, message: "Test question saved." };
  },
);

export const deleteTestQuestionAction = tenantAction(
  "admin",
  z.object({ questionId: z.uuid({ error: "Unknown test question" }) }),
  async (ctx, input) => {
    await deleteTestQuestion(ctx, input.questionId);
    refresh(ctx.tenant.slug);
    return { ok: true, message: "Test question deleted." };
  },
);

const SEED_WORDS = {
  answers: "your answers",
  unanswered: "Unanswered questions",
  rated_down: "answers rated down",
  site: "your website's pages",
} as const;

export const seedTestQuestionsAction = tenantAction(
  "admin",
  z.object({ from: z.enum(["answers", "unanswered", "rated_down", "site"], { error: "Unknown source" }) }),
  async (ctx, input) => {
    const { added } = await seedTestQuestions(ctx, input.from);
    refresh(ctx.tenant.slug);
    const where = SEED_WORDS[input.from];
    if (added === 0) return { ok: true, message: `No new questions from ${where}.` };
    return { ok: true, message: `${added} ${added === 1 ? "question" : "questions"} added from ${where}.` };
  },
);

export const importTestQuestionsAction = tenantAction(
  "admin",
  z.object({ csv: z.string().max(1_000_000, { error: "The file is too large (1 MB at most)." }) }),
  async (ctx, input) => {
    const { added } = await importTestQuestions(ctx, input.csv);
    refresh(ctx.tenant.slug);
    return { ok: true, message: `${added} ${added === 1 ? "question" : "questions"} imported.`, values: {} };
  },
);

export const runTestQuestionsAction = tenantAction("admin", z.object({}), async (ctx) => {
  const queue = processQueue();
  if (!queue) throw new AppError("unavailable", "Runs cannot start right now; try again in a minute.");
  const { started } = await runTestQuestionsNow(ctx, { queue: await queue, env: env() });
  refresh(ctx.tenant.slug);
  return {
    ok: true,
    message: started ? "Run started." : "A run is going; this one starts as soon as it ends.",
  };
});
