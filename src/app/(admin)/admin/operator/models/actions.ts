"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { operatorAction } from "@/lib/auth/guard";
import { checkModels, describeChecks } from "@/lib/chat/model-check";
import { env } from "@/lib/env";
import { adoptLocalModelServer } from "@/lib/setup/local-model";

export const checkModelsAction = operatorAction(z.object({}), async () => {
  const checks = await checkModels(env());
  const failed = typeof checks === "string" || checks.some((c) => !c.ok);
  return {
    ok: !failed,
    message: failed ? "Some models cannot answer visitors." : "Every model answered.",
    data: { report: describeChecks(checks) },
    values: {},
  };
});

export const adoptLocalModelAction = operatorAction(
  z.object({ preset: z.string().trim().max(40) }),
  async (ctx, input) => {
    const server = await adoptLocalModelServer(ctx, input);
    revalidatePath("/admin", "layout");
    return {
      ok: true,
      message: `${server.name} is in use with ${server.models.join(", ")}, written to .env.local. Businesses can chat now.`,
    };
  },
);
