"use server";

import { revalidatePath } from "next/cache";
import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { z } from "zod";
import { removeProfilePhoto, setProfilePhoto } from "@/lib/accounts/photo";
import { changePassword, renameUser, signOutEverywhere } from "@/lib/accounts/users";
import { newPasswordField, PASSWORD_MAX } from "@/lib/auth/accounts";
import { tenantAction } from "@/lib/auth/guard";
import { clearSession, issueSession } from "@/lib/auth/session-cookie";
import { env } from "@/lib/env";
import { clientIp } from "@/lib/security/client-ip";

// The signed-in person's own account. It is reached through a tenant's admin, so the actions go through
// the same guard (any member); they change only the caller's own user row.

export const updateNameAction = tenantAction(
  "viewer",
  z.object({
    name: z.string().trim().min(1, "Enter your name").max(100, "Keep your name under 100 characters"),
  }),
  async (ctx, input) => {
    await renameUser(ctx, input.name);
    revalidatePath(`/admin/${ctx.tenant.slug}`, "layout");
    return { message: "Name saved." };
  },
);

// The photo arrives as a file field, which the form parser leaves out; the use case checks the bytes.
export const updatePhotoAction = tenantAction("viewer", z.object({}), async (ctx, _input, formData) => {
  const file = formData.get("photo");
  const bytes = file instanceof Blob ? new Uint8Array(await file.arrayBuffer()) : new Uint8Array();
  await setProfilePhoto(ctx, bytes);
  revalidatePath(`/admin/${ctx.tenant.slug}`, "layout");
  return { message: "Photo saved." };
});

export const removePhotoAction = tenantAction("viewer", z.object({}), async (ctx) => {
  await removeProfilePhoto(ctx);
  revalidatePath(`/admin/${ctx.tenant.slug}`, "layout");
  return { message: "Photo removed." };
});

export const changePasswordAction = tenantAction(
  "viewer",
  z
    .object({
      currentPassword: z.string().min(1, "Enter your current password").max(PASSWORD_MAX),
      newPassword: newPasswordField,
      confirmPassword: z.string(),
    })
    .refine((v) => v.newPassword === v.confirmPassword, {
      path: ["confirmPassword"],
      message: "The two new passwords are not the same",
    }),
  async (ctx, input) => {
    const sessionVersion = await changePassword(ctx, {
      current: input.currentPassword,
      next: input.newPassword,
      ip: clientIp(await headers(), env().MICHI_TRUST_PROXY),
    });
    // Every other session is now void; this browser gets a fresh one so the person stays signed in here.
    await issueSession(await cookies(), { ...ctx.user, sessionVersion });
    revalidatePath(`/admin/${ctx.tenant.slug}`, "layout");
    return { message: "Password changed. You were signed out on every other device." };
  },
);

export const signOutEverywhereAction = tenantAction("viewer", z.object({}), async (ctx) => {
  await signOutEverywhere(ctx);
  clearSession(await cookies());
  redirect("/signin");
});
