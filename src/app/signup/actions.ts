"use server";

import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { z } from "zod";
import { newPasswordField } from "@/lib/auth/accounts";
import { publicAction } from "@/lib/auth/action";
import { getDb } from "@/lib/db";
import { env } from "@/lib/env";
import { clientIp } from "@/lib/security/client-ip";
import { LIMITS, takeOrRefuse } from "@/lib/security/limits";
import { signUp } from "@/lib/tenants/sign-up";

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

const SIGNED_UP_PATH = "/signin?signedUp=1";

export const signUpAction = publicAction(signUpInput, async (input) => {
  if (!env().MICHI_ALLOW_SIGNUP) return { ok: false, message: "Sign-up is closed on this installation." };
  await takeOrRefuse(
    LIMITS.signUpPerIp,
    clientIp(await headers(), env().MICHI_TRUST_PROXY),
    "Too many sign-ups from your network.",
  );
  // One answer whether or not the e-mail already had an account (nothing is created then): the person signs
  // in next, which works with the password they chose for a new account, or with their existing one.
  await signUp(await getDb(), input);
  redirect(SIGNED_UP_PATH);
});
