import "server-only";
import { z } from "zod";
import type { ActionState, TenantContext } from "@/lib/auth/guard";
import { getPackConfig } from "@/lib/db/queries/packs";
import { savePackSettings } from "@/lib/tools/config-store";
import { ALL_PACKS } from "@/lib/tools/index";
import { isTruthy } from "@/shared/parse";
import { auditToggle, loadPackView, requirePack, type ToolsDeps } from "./settings";

// The on/off switch of the Tools list: only the enable flag changes, the settings stay as saved. A pack that
// still needs settings cannot be turned on from the list (it could not run); turning off always works.

export const toggleSchema = z.object({
  packId: z.string().min(1).max(64),
  enabled: z.preprocess(isTruthy, z.boolean()),
});

export async function setPackEnabled(
  ctx: TenantContext,
  input: z.infer<typeof toggleSchema>,
  deps: Pick<ToolsDeps, "packs"> = {},
): Promise<ActionState> {
  const pack = requirePack(deps.packs ?? ALL_PACKS, input.packId);
  const view = await loadPackView(ctx, pack.id, deps);
  const name = view?.name ?? pack.id;
  if (input.enabled && view?.status === "needs_settings") {
    return {
      ok: false,
      message: `${name} needs its settings before it can be turned on. Open it and fill in the required fields.`,
    };
  }
  const tenantId = ctx.tenant.id;
  const changed = await ctx.db.forTenant(tenantId, async (tx) => {
    const before = (await getPackConfig(tx, pack.id))?.enabled ?? false;
    if (before === input.enabled) return false;
    await savePackSettings(tx, tenantId, pack.id, { enabled: input.enabled }, ctx.user.id);
    await auditToggle(ctx, tx, pack.id, input.enabled);
    return true;
  });
  if (!changed) return { ok: true, message: `${name} is already ${input.enabled ? "on" : "off"}.` };
  return { ok: true, message: `${name} is now ${input.enabled ? "on" : "off"}.` };
}
