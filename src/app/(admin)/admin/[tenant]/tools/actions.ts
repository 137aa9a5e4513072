"use server";

import { revalidatePath } from "next/cache";
import { tenantAction } from "@/lib/auth/guard";
import { savePackForm, saveSchema } from "@/lib/pack-settings/settings";
import { runPackTest, testSchema } from "@/lib/pack-settings/test-pack";
import { setPackEnabled, toggleSchema } from "@/lib/pack-settings/toggle";
import { fieldName } from "@/lib/tools/form-data";
import { ALL_PACKS } from "@/lib/tools/index";

// Admins and owners save, switch and test; a viewer's forged submission is refused by the guard before
// anything runs.

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
    revalidatePath(`/admin/${ctx.tenant.slug}/tools`, "layout");
    return result;
  },
  { echo },
);

export const togglePackAction = tenantAction("admin", toggleSchema, async (ctx, input) => {
  const result = await setPackEnabled(ctx, input);
  revalidatePath(`/admin/${ctx.tenant.slug}/tools`, "layout");
  return result;
});

export const testPackAction = tenantAction(
  "admin",
  testSchema,
  async (ctx, input, fd) => {
    const result = await runPackTest(ctx, input, fd);
    revalidatePath(`/admin/${ctx.tenant.slug}/tools`, "layout");
    return result;
  },
  { echo },
);
