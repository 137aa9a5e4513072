"use server";

import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { createElement, type ReactNode } from "react";
import { z } from "zod";
import { checkResetLink, resetPassword } from "@/lib/accounts/password-reset";
import { newPasswordField, PASSWORD_MAX } from "@/lib/auth/accounts";
import { publicAction } from "@/lib/auth/action";
import { getDb } from "@/lib/db";
import { env } from "@/lib/env";
import { clientIp } from "@/lib/security/client-ip";
import { ResetView } from "./ResetView";

const token = z.string().max(100);

/** The reset page for the token in the form (the page's fragment). */
export async function openResetLinkAction(_prev: unknown, form: FormData): Promise<ReactNode> {
  const parsed = token.safeParse(form.get("token"));
  const t = parsed.success ? parsed.data : "";
  return createElement(ResetView, { link: await checkResetLink(await getDb(), t), token: t });
}

export const resetPasswordAction = publicAction(
  z
    .object({
      token,
      newPassword: newPasswordField,
      confirmPassword: z.string().max(PASSWORD_MAX),
    })
    .refine((v) => v.newPassword === v.confirmPassword, {
      path: ["confirmPassword"],
      message: "The two passwords are not the same",
    }),
  async (input) => {
    const ip = clientIp(await headers(), env().MICHI_TRUST_PROXY);
    await resetPassword(await getDb(), { token: input.token, password: input.newPassword, ip });
    redirect("/signin?reset=1");
  },
);
