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
import { acceptInvitation, requestInvitationSignUp } from "@/lib/team/invitations";
import { INVITE_PATH } from "./path";

// The invitation forms' actions, apart from the one that renders the page (actions.ts), so the page's view
// can import its forms without a cycle. Every token arrives in a POST body.

const token = z.string().max(100);

export const acceptInvitationAction = publicAction(z.object({ token }), async (input) => {
  const { user, db } = await sessionUser();
  if (!user) redirectToSignIn(INVITE_PATH);
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
    if (user) redirect(INVITE_PATH);
    const ip = clientIp(await headers(), env().MICHI_TRUST_PROXY);
    // Nothing is created yet, and the answer is the same whether or not the invited address has an account:
    // the link that finishes goes to that address, never to whoever holds the invitation link.
    const { email } = await requestInvitationSignUp(db, {
      token: input.token,
      name: input.name,
      password: input.password,
      ip,
    });
    return {
      message: `Check your inbox: we sent a link to ${email} to finish creating your account and join. It works once, within a day.`,
    };
  },
);
