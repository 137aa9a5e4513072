"use server";

import { createElement, type ReactNode } from "react";
import { z } from "zod";
import { readSignUpLink } from "@/lib/accounts/pending-sign-up";
import { checkActionArgs } from "@/lib/auth/action";
import { getDb } from "@/lib/db";
import { ConfirmView } from "./ConfirmView";

const token = z.string().max(100);

/** The confirmation page for the token in the form (the page's fragment). */
export async function openSignUpLinkAction(_prev: unknown, form: FormData): Promise<ReactNode> {
  checkActionArgs(form);
  const parsed = token.safeParse(form.get("token"));
  const t = parsed.success ? parsed.data : "";
  return createElement(ConfirmView, { link: await readSignUpLink(await getDb(), t), token: t });
}
