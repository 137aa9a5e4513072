"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { parseForm, tenantAction } from "@/lib/auth/guard";
import { botFormSchema } from "@/lib/bot/form";
import { updateBotSettings } from "@/lib/bot/settings";
import { env } from "@/lib/env";

// The form is parsed here, against the operator's model list as it is now.
export const saveBotAction = tenantAction("admin", z.object({}), async (ctx, _input, fd) => {
  const parsed = parseForm(botFormSchema(env().MICHI_MODELS), fd);
  if (!parsed.ok) return parsed.state;
  const { changed } = await updateBotSettings(ctx, parsed.data);
  revalidatePath(`/admin/${ctx.tenant.slug}/bot`);
  return { message: changed.length > 0 ? "Bot settings saved." : "No changes to save." };
});
