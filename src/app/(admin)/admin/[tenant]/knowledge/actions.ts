"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { tenantAction } from "@/lib/auth/guard";
import { addCuratedAnswer, answerSchema, deleteCuratedAnswer } from "@/lib/knowledge/answers";
import { resyncNow, setPageExcluded } from "@/lib/knowledge/sources";

// The Knowledge page's changes: admins and owners only; viewers read the page and may ask a test question.

const refresh = (slug: string) => revalidatePath(`/admin/${slug}/knowledge`);

export const resyncAction = tenantAction("admin", z.object({}), async (ctx) => {
  const result = await resyncNow(ctx);
  if (result.ok) refresh(ctx.tenant.slug);
  return result;
});

export const excludePageAction = tenantAction(
  "admin",
  z.object({
    pageId: z.uuid({ error: "Unknown page" }),
    excluded: z.enum(["true", "false"]).transform((v) => v === "true"),
  }),
  async (ctx, input) => {
    const result = await setPageExcluded(ctx, input.pageId, input.excluded);
    if (result.ok) refresh(ctx.tenant.slug);
    return result;
  },
);

export const addAnswerAction = tenantAction("admin", answerSchema, async (ctx, input) => {
  const result = await addCuratedAnswer(ctx, input);
  if (result.ok) refresh(ctx.tenant.slug);
  return result;
});

export const deleteAnswerAction = tenantAction(
  "admin",
  z.object({ answerId: z.uuid({ error: "Unknown answer" }) }),
  async (ctx, input) => {
    const result = await deleteCuratedAnswer(ctx, input.answerId);
    if (result.ok) refresh(ctx.tenant.slug);
    return result;
  },
);
