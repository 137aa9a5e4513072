"use server";

import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { z } from "zod";
import { sessionUser } from "@/lib/auth/access";
import { newPasswordField } from "@/lib/auth/accounts";
import { publicAction } from "@/lib/auth/action";
import { redirectToSignIn } from "@/lib/auth/redirect";
import { env } from "@/lib/env";
import { clientIp } from "@/lib/security/client-ip";
import { acceptInvitation, signUpFromInvitation } from "@/lib/team/invitations";

// The invitee's side. The token in the form is the one in the page's URL; the business and the role are read
// from the stored invitation, and the account is the signed-in one.

const token = z.string().max(100);
const invitePath = (t: string) => `/invite/${encodeURIComponent(t)}`;

export const acceptInvitationAction = publicAction(z.object({ token }), async (input) => {
  const { user, db } = await sessionUser();
  if (!user) redirectToSignIn(invitePath(input.token));
  const joined = await acceptInvitation(db, user, input.token);
  redirect(`/admin/${joined.slug}`);
});

export const inviteSignUpAction = publicAction(
  z.object({
    token,
    name: z.string().trim().min(1, "Enter your name").max(100, "Keep your name under 100 characters"),
    password: newPasswordField,
  }),
  async (input) => {
    const { db, user } = await sessionUser();
    if (user) redirect(invitePath(input.token));
    const ip = clientIp(await headers(), env().MICHI_TRUST_PROXY);
    await signUpFromInvitation(db, { token: input.token, name: input.name, password: input.password, ip });
    // One answer whether or not the address already had an account (see signUpFromInvitation).
    redirect(`/signin?signedUp=1&callbackUrl=${encodeURIComponent(invitePath(input.token))}`);
  },
);
