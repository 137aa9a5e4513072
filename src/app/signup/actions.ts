"use server";

import { headers } from "next/headers";
import { z } from "zod";
import { newPasswordField } from "@/lib/auth/accounts";
import { publicAction } from "@/lib/auth/action";
import { getDb } from "@/lib/db";
import { env } from "@/lib/env";
import { clientIp } from "@/lib/security/client-ip";
import { LIMITS, takeOrRefuse } from "@/lib/security/limits";
import { requestSignUp } from "@/lib/tenants/sign-up";

const signUpInput = z.object({
  name: z.string().trim().min(1, "Enter your name").max(100, "Keep your name under 100 characters"),
  email: z.email("Enter a valid e-mail address").trim().toLowerCase().max(320),
  businessName: z
    .string()
    .trim()
    .min(2, "Enter the name of your business")
    .max(80, "Keep the business name under 80 characters"),
  password: newPasswordField,
  // The browser's zone, filled in by the form's script; an unknown one leaves the business on UTC.
  timeZone: z.string().max(64).optional(),
});

/** The one answer, for an address with an account and one without alike. */
const checkInbox = (email: string) =>
  `Check your inbox: we sent a link to ${email} to finish. It works once, within a day. No mail after a few minutes? Check the spam folder, or sign up again.`;

export const signUpAction = publicAction(signUpInput, async (input) => {
  if (!env().MICHI_ALLOW_SIGNUP) return { ok: false, message: "Sign-up is closed on this installation." };
  await takeOrRefuse(
    LIMITS.signUpPerIp,
    clientIp(await headers(), env().MICHI_TRUST_PROXY),
    "Too many sign-ups from your network.",
  );
  // Nothing is created and the address is not looked at before the answer: the password is hashed and the
  // request stored and queued, the same work for every address. The mailed link finishes the sign-up.
  await requestSignUp(await getDb(), input);
  return { message: checkInbox(input.email) };
});
