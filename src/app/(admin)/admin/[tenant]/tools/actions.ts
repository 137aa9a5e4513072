"use server";

import { revalidatePath } from "next/cache";
import { tenantAction } from "@/lib/auth/guard";
import { requirePack, saveSchema, updatePackSettings } from "@/lib/pack-settings/settings";
import { testPack, testSchema } from "@/lib/pack-settings/test-pack";
import { setPackEnabled, toggleSchema } from "@/lib/pack-settings/toggle";
import { argFields, readArgs } from "@/lib/tools/arg-form";
import { fieldName, readSubmission } from "@/lib/tools/form-data";
import { ALL_PACKS } from "@/lib/tools/index";

// Admins and owners save, switch and test; a viewer's forged submission is refused by the guard before
// anything runs. The pack's own inputs (config fields, test arguments) are read here, from the form the pack
// generated.

// Secret inputs carry ordinary names (cfg.apiKey), so the guard's name-based filter cannot spot them: never
// echo any input that is a secret in some pack, nor a clear marker.
const secretInputs = new Set(
  ALL_PACKS.flatMap((p) => p.configFields.filter((f) => f.type === "secret").map((f) => fieldName(f.key))),
);
const echo = (name: string) => !secretInputs.has(name) && !/pass(word)?|secret|token|\.clear$/i.test(name);

const refresh = (slug: string) => revalidatePath(`/admin/${slug}/tools`, "layout");

export const savePackAction = tenantAction(
  "admin",
  saveSchema,
  async (ctx, input, fd) => {
    const pack = requirePack(ALL_PACKS, input.packId);
    try {
      const { label, changed, shownSecret } = await updatePackSettings(ctx, {
        ...input,
        ...readSubmission(pack.configFields, fd),
      });
      if (shownSecret)
        return {
          message: `${label}: saved. Copy its signing secret now: it will not be shown again.`,
          data: { secret: shownSecret },
        };
      return { message: changed.length === 0 ? "No changes to save." : `${label}: saved.` };
    } finally {
      // Also after a refusal: an invalid form may still have turned the pack off.
      refresh(ctx.tenant.slug);
    }
  },
  { echo },
);

export const togglePackAction = tenantAction("admin", toggleSchema, async (ctx, input) => {
  try {
    const { name, changed } = await setPackEnabled(ctx, input);
    const state = input.enabled ? "on" : "off";
    return { message: changed ? `${name} is now ${state}.` : `${name} is already ${state}.` };
  } finally {
    refresh(ctx.tenant.slug);
  }
});

/**
 * The Test panel: reads the argument form generated from the pack's parameters (plain-language errors next to
 * each input, nothing run while one is wrong), then runs the pack.
 */
export const testPackAction = tenantAction(
  "admin",
  testSchema,
  async (ctx, input, fd) => {
    const pack = requirePack(ALL_PACKS, input.packId);
    const read = readArgs(argFields(pack.definition.function.parameters), fd);
    if (!read.ok) return { ok: false, message: "The test did not run.", fieldErrors: read.fieldErrors };
    try {
      const r = await testPack(ctx, pack.id, read.args);
      return {
        message: "Test finished.",
        data: {
          result: r.result,
          chars: String(r.chars),
          tokens: String(r.tokens),
          label: r.label,
          outcome: String(r.outcome),
          durationMs: String(r.durationMs),
        },
      };
    } finally {
      refresh(ctx.tenant.slug);
    }
  },
  { echo },
);
