"use server";

import { z } from "zod";
import { operatorAction } from "@/lib/auth/guard";
import { checkModels, describeChecks } from "@/lib/chat/model-check";
import { env } from "@/lib/env";

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
