"use server";

import { createElement, type ReactNode } from "react";
import { z } from "zod";
import { sessionUser } from "@/lib/auth/access";
import { checkActionArgs } from "@/lib/auth/action";
import { readInvitation } from "@/lib/team/invitations";
import { InvitationView } from "./InvitationView";

// The invitee's side. Every token arrives in a POST body (the page reads it from the link's fragment); the
// business and the role are read from the stored invitation, and the account is the signed-in one.

const token = z.string().max(100);

/** The invitation page for the token in the form (the page's fragment). */
export async function openInvitationAction(_prev: unknown, form: FormData): Promise<ReactNode> {
  checkActionArgs(form);
  const parsed = token.safeParse(form.get("token"));
  const t = parsed.success ? parsed.data : "";
  const { user, db } = await sessionUser();
  return createElement(InvitationView, { view: await readInvitation(db, t), token: t, user });
}
