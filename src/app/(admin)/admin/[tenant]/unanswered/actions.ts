"use server";

import { revalidatePath } from "next/cache";
import { tenantAction } from "@/lib/auth/guard";
import { markHandledSchema, markUnansweredHandled } from "@/lib/insights/unanswered";

// Marking a group of unanswered questions handled is for admins and owners (checked again in the use case).
export const markUnansweredAction = tenantAction("admin", markHandledSchema, async (ctx, input) => {
  const n = await markUnansweredHandled(ctx, input.questionIds);
  revalidatePath(`/admin/${ctx.tenant.slug}/unanswered`);
  return { message: n === 1 ? "Marked 1 question as handled." : `Marked ${n} questions as handled.` };
});
