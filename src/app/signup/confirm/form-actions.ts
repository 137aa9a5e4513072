"use server";

import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { z } from "zod";
import { PASSWORD_MAX } from "@/lib/auth/accounts";
import { publicAction } from "@/lib/auth/action";
import { issueSession } from "@/lib/auth/session-cookie";
import { getDb } from "@/lib/db";
import { env } from "@/lib/env";
import { clientIp } from "@/lib/security/client-ip";
import { completeSignUp } from "@/lib/tenants/confirm-sign-up";

// The confirmation form's action, apart from the one that renders the page (actions.ts), so the page's view
// can import its form without a cycle. The token arrives in the POST body.

export const confirmSignUpAction = publicAction(
  z.object({
    token: z.string().max(100),
    password: z.string().min(1, "Enter your password").max(PASSWORD_MAX),
  }),
  async (input) => {
    const ip = clientIp(await headers(), env().MICHI_TRUST_PROXY);
    const done = await completeSignUp(await getDb(), { token: input.token, password: input.password, ip });
    // The new account is signed in and lands in its business.
    await issueSession(await cookies(), done.user);
    redirect(`/admin/${done.slug}`);
  },
);
