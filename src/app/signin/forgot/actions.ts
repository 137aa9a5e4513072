"use server";

import { headers } from "next/headers";
import { z } from "zod";
import { RESET_MINUTES, requestPasswordReset } from "@/lib/accounts/password-reset";
import { publicAction } from "@/lib/auth/action";
import { getDb } from "@/lib/db";
import { env } from "@/lib/env";
import { clientIp } from "@/lib/security/client-ip";

export const requestResetAction = publicAction(
  z.object({ email: z.email("Enter a valid e-mail address").trim().toLowerCase().max(320) }),
  async (input) => {
    const ip = clientIp(await headers(), env().MICHI_TRUST_PROXY);
    // Only a job is queued before the answer, so it takes as long whether or not the address has an account.
    await requestPasswordReset(await getDb(), { email: input.email, ip });
    return {
      message: `If ${input.email} has a michi-chat account, a link to choose a new password is on its way. It works once, within ${RESET_MINUTES} minutes. No mail after a few minutes? Check the spam folder, or ask again.`,
    };
  },
);
