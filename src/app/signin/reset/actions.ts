"use server";

import { createElement, type ReactNode } from "react";
import { z } from "zod";
import { checkResetLink } from "@/lib/accounts/password-reset";
import { checkActionArgs } from "@/lib/auth/action";
import { getDb } from "@/lib/db";
import { ResetView } from "./ResetView";

const token = z.string().max(100);

/** The reset page for the token in the form (the page's fragment). */
export async function openResetLinkAction(_prev: unknown, form: FormData): Promise<ReactNode> {
  checkActionArgs(form);
  const parsed = token.safeParse(form.get("token"));
  const t = parsed.success ? parsed.data : "";
  return createElement(ResetView, { link: await checkResetLink(await getDb(), t), token: t });
}
