"use server";

import { revalidatePath } from "next/cache";
import { tenantAction } from "@/lib/auth/guard";
import { leadStatusSchema, setLeadHandled } from "@/lib/leads/inbox";

// Marking a request handled (or new again) is for admins and owners; setLeadHandled checks the role again.
export const setLeadStatusAction = tenantAction("admin", leadStatusSchema, async (ctx, input) => {
  await setLeadHandled(ctx, input);
  revalidatePath(`/admin/${ctx.tenant.slug}/inbox`);
  return { message: input.status === "handled" ? "Marked as handled." : "Marked as new again." };
});
