"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { z } from "zod";
import { tenantAction } from "@/lib/auth/guard";
import { addMember, changeRole, deleteTenant, removeMember } from "@/lib/team/members";

// Team management is for owners; admins and viewers see the list read-only and are refused here.

const role = z.enum(["viewer", "admin", "owner"], { error: "Choose a role" });
const userId = z.uuid({ error: "Unknown member" });

export const addMemberAction = tenantAction(
  "owner",
  z.object({ email: z.email("Enter a valid e-mail address").trim().toLowerCase().max(320), role }),
  async (ctx, input) => {
    const added = await addMember(ctx, input);
    revalidatePath(`/admin/${ctx.tenant.slug}/team`);
    // The same words whether or not the e-mail already had an account (see addMember).
    return {
      message: `${added.email} is now a member of this business as ${input.role}. Give them this one-time password now; it is not shown again. With it they sign in the first time and choose their own password. If they already have a michi-chat account, they sign in with their own password instead.`,
      data: { email: added.email, oneTimePassword: added.oneTimePassword },
      values: {},
    };
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
