"use server";

import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { z } from "zod";
import { publicAction } from "@/lib/auth/action";
import { authenticate } from "@/lib/auth/credentials";
import { safeCallbackPath } from "@/lib/auth/redirect";
import { clearSession, issueSession } from "@/lib/auth/session-cookie";
import { throttleMessage } from "@/lib/auth/throttle";
import { getDb } from "@/lib/db";
import { env } from "@/lib/env";
import { clientIp } from "@/lib/security/client-ip";

// Sign-in as a plain server-action form: it works before the page's JavaScript has loaded, shows the reason
// a sign-in failed, and keeps the e-mail that was typed.

const signInInput = z.object({
  email: z.string().trim().min(1, "Enter your e-mail address").max(320, "This e-mail address is too long"),
  password: z.string().min(1, "Enter your password").max(200, "This password is too long"),
  callbackUrl: z.string().optional(),
});

export const signInAction = publicAction(signInInput, async (input) => {
  const ip = clientIp(await headers(), env().MICHI_TRUST_PROXY);
  const db = await getDb();
  const result = await authenticate(db.platform, { email: input.email, password: input.password, ip });
  if (!result.ok) {
    return {
      ok: false,
      message:
        result.reason === "throttled"
          ? throttleMessage(result.retryAfterSec)
          : "Wrong e-mail or password. Check both and try again.",
    };
  }
  await issueSession(await cookies(), result.user);
  redirect(safeCallbackPath(input.callbackUrl));
});

/** Signs this browser out. Other devices stay signed in; "Sign out everywhere" is on the account page. */
export async function signOutAction(): Promise<void> {
  clearSession(await cookies());
  redirect("/signin");
}
