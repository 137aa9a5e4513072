"use server";

import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { z } from "zod";
import { resetPassword } from "@/lib/accounts/password-reset";
import { newPasswordField, PASSWORD_MAX } from "@/lib/auth/accounts";
import { publicAction } from "@/lib/auth/action";
import { getDb } from "@/lib/db";
import { env } from "@/lib/env";
import { clientIp } from "@/lib/security/client-ip";

// The reset form's action, apart from the one that renders the page (actions.ts), so the page's view can
// import its form without a cycle. The token arrives in the POST body.

const token = z.string().max(100);

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
