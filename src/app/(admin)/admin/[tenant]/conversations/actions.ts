"use server";

import { redirect } from "next/navigation";
import { tenantAction } from "@/lib/auth/guard";
import { deleteConversation, deleteConversationSchema } from "@/lib/insights/manage";

// Deleting is for admins and owners; a viewer's request is refused by the guard (and again in
// deleteConversation). After the delete the transcript no longer exists, so the admin goes back to the list.
export const deleteConversationAction = tenantAction(
  "admin",
  deleteConversationSchema,
  async (ctx, input) => {
    await deleteConversation(ctx, input.id);
    redirect(`/admin/${ctx.tenant.slug}/conversations?deleted=1`);
  },
);
