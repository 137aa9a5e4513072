"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { z } from "zod";
import { tenantAction } from "@/lib/auth/guard";
import { INVITATION_DAYS, inviteMember, revokeInvitation } from "@/lib/team/invitations";
import { changeRole, deleteTenant, removeMember } from "@/lib/team/members";
import { invitationSentence } from "./invitation-words";

// Team management is for owners; admins and viewers see the list read-only and are refused here.

const role = z.enum(["viewer", "admin", "owner"], { error: "Choose a role" });
const userId = z.uuid({ error: "Unknown member" });

export const inviteMemberAction = tenantAction(
  "owner",
  z.object({ email: z.email("Enter a valid e-mail address").trim().toLowerCase().max(320), role }),
  async (ctx, input) => {
    const invited = await inviteMember(ctx, input);
    revalidatePath(`/admin/${ctx.tenant.slug}/team`);
    // The same words whether or not the address has an account (see inviteMember); only the mail's fate differs.
    return {
      message: `${invitationSentence(invited.email, invited.role, invited.mail.status)} The link works once and expires in ${INVITATION_DAYS} days.`,
      data: { email: invited.email, link: invited.link },
      values: {},
    };
  },
);

export const revokeInvitationAction = tenantAction(
  "owner",
  z.object({ invitationId: z.uuid({ error: "Unknown invitation" }) }),
  async (ctx, input) => {
    await revokeInvitation(ctx, input.invitationId);
    revalidatePath(`/admin/${ctx.tenant.slug}/team`);
    return { message: "Invitation revoked: its link no longer works." };
  },
);

export const changeRoleAction = tenantAction("owner", z.object({ userId, role }), async (ctx, input) => {
  await changeRole(ctx, input.userId, input.role);
  revalidatePath(`/admin/${ctx.tenant.slug}`, "layout");
  return { message: "Role saved." };
});

export const removeMemberAction = tenantAction("owner", z.object({ userId }), async (ctx, input) => {
  await removeMember(ctx, input.userId);
  if (input.userId === ctx.user.id) redirect("/admin");
  revalidatePath(`/admin/${ctx.tenant.slug}/team`);
  return { message: "Member removed." };
});

export const deleteTenantAction = tenantAction(
  "owner",
  z.object({ confirm: z.string().max(100).default("") }),
  async (ctx, input) => {
    await deleteTenant(ctx, input.confirm);
    redirect("/admin");
  },
);
