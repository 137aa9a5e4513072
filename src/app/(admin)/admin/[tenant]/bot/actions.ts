"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { tenantAction } from "@/lib/auth/guard";
import { saveBotForm } from "@/lib/bot/settings";
import { env } from "@/lib/env";

// The form is validated inside saveBotForm, against the operator's model list as it is now.
export const saveBotAction = tenantAction("admin", z.object({}), async (ctx, _input, fd) => {
  const result = await saveBotForm(ctx, fd, env().MICHI_MODELS);
  if (result.ok !== false) revalidatePath(`/admin/${ctx.tenant.slug}/bot`);
  return result;
});
