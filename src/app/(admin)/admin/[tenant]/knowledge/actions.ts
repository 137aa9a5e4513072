"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { tenantAction } from "@/lib/auth/guard";
import {
  addCuratedAnswer,
  answerSchema,
  deleteCuratedAnswer,
  updateCuratedAnswer,
} from "@/lib/knowledge/answers";
import { resyncNow, setPageExcluded } from "@/lib/knowledge/sources";
import { deleteDocument } from "@/lib/knowledge/uploads";

// The Knowledge page's changes: admins and owners only; viewers read the page and may ask a test question.

const refresh = (slug: string) => revalidatePath(`/admin/${slug}/knowledge`);

export const resyncAction = tenantAction("admin", z.object({}), async (ctx) => {
  await resyncNow(ctx);
  refresh(ctx.tenant.slug);
  return { ok: true, message: "Re-sync started." };
});

export const excludePageAction = tenantAction(
  "admin",
  z.object({
    pageId: z.uuid({ error: "Unknown page" }),
    excluded: z.enum(["true", "false"]).transform((v) => v === "true"),
  }),
  async (ctx, input) => {
    const { changed } = await setPageExcluded(ctx, input.pageId, input.excluded);
    if (!changed) return { ok: true, message: "No changes to save." };
    refresh(ctx.tenant.slug);
    return {
      ok: true,
      message: input.excluded ? "Page excluded." : "Page included again; the next sync reads it.",
    };
  },
);

export const addAnswerAction = tenantAction("admin", answerSchema, async (ctx, input) => {
  await addCuratedAnswer(ctx, input);
  refresh(ctx.tenant.slug);
  return { ok: true, message: "Answer saved.", values: {} };
});

export const deleteAnswerAction = tenantAction(
  "admin",
  z.object({ answerId: z.uuid({ error: "Unknown answer" }) }),
  async (ctx, input) => {
    await deleteCuratedAnswer(ctx, input.answerId);
    refresh(ctx.tenant.slug);
    return { ok: true, message: "Answer deleted." };
  },
);

// The fields are checked by the use case itself, which names every bad one at once.
export const updateAnswerAction = tenantAction(
  "admin",
  z.object({
    answerId: z.string().max(100),
    questions: z.string().max(10_000).default(""),
    answer: z.string().max(10_000).default(""),
    lang: z.string().max(10).default("en"),
  }),
  async (ctx, { answerId, ...input }) => {
    const { changed } = await updateCuratedAnswer(ctx, answerId, input);
    if (!changed) return { ok: true, message: "No changes to save." };
    refresh(ctx.tenant.slug);
    return { ok: true, message: "Answer updated." };
  },
);

export const deleteDocumentAction = tenantAction(
  "admin",
  z.object({ documentId: z.uuid({ error: "Unknown document" }) }),
  async (ctx, input) => {
    await deleteDocument(ctx, input.documentId);
    refresh(ctx.tenant.slug);
    return { ok: true, message: "Document deleted." };
  },
);
