"use server";

import { revalidatePath } from "next/cache";
import { fieldName } from "@/components/config-form/form-data";
import { tenantAction } from "@/lib/auth/guard";
import { ALL_PACKS } from "@/lib/tools/index";
import { runPackTest, savePackForm, saveSchema, testSchema } from "./service";

// Admins and owners save and test; a viewer's forged submission is refused by the guard before anything runs.

// Secret inputs carry ordinary names (cfg.apiKey), so the guard's name-based filter cannot spot them: never
// echo any input that is a secret in some pack, nor a clear marker.
const secretInputs = new Set(
  ALL_PACKS.flatMap((p) => p.configFields.filter((f) => f.type === "secret").map((f) => fieldName(f.key))),
);
const echo = (name: string) => !secretInputs.has(name) && !/pass(word)?|secret|token|\.clear$/i.test(name);

export const savePackAction = tenantAction(
  "admin",
  saveSchema,
  async (ctx, input, fd) => {
    const result = await savePackForm(ctx, input, fd);
    revalidatePath(`/admin/${ctx.tenant.slug}/tools`);
    return result;
  },
  { echo },
);

export const testPackAction = tenantAction("admin", testSchema, (ctx, input) => runPackTest(ctx, input), {
  echo,
});
