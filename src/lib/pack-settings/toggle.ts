import "server-only";
import { z } from "zod";
import { assertRole, auditedTx, type TenantContext } from "@/lib/auth/access";
import { getPackConfig } from "@/lib/db/queries/packs";
import { requestAutoTestRun } from "@/lib/db/queries/test-questions";
import { AppError } from "@/lib/errors";
import { savePackSettings } from "@/lib/tools/config-store";
import { ALL_PACKS } from "@/lib/tools/index";
import { isTruthy } from "@/shared/parse";
import { auditToggle, lacksMessage, loadPackView, requirePack, type ToolsDeps } from "./settings";

// The on/off switch of the Tools list, for admins and owners: only the enable flag changes, the settings stay
// as saved. A pack that still needs settings cannot be turned on from the list (it could not run); turning
// off always works.

export const toggleSchema = z.object({
  packId: z.string().min(1).max(64),
  enabled: z.preprocess(isTruthy, z.boolean()),
});

/** Switches a pack; `changed` is false when it already was as asked. `name` is the admin-facing pack name. */
export async function setPackEnabled(
  ctx: TenantContext,
  input: z.infer<typeof toggleSchema>,
  deps: Pick<ToolsDeps, "packs"> = {},
): Promise<{ name: string; changed: boolean }> {
  assertRole(ctx, "admin");
  const pack = requirePack(deps.packs ?? ALL_PACKS, input.packId);
  const view = await loadPackView(ctx, pack.id, deps);
  const name = view?.name ?? pack.id;
  if (input.enabled && view?.status === "needs_settings")
    throw new AppError(
      "conflict",
      `${name} needs its settings before it can be turned on. Open it and fill in the required fields.`,
    );
  if (input.enabled && view?.status === "needs_details" && view.missing)
    throw new AppError("conflict", lacksMessage(name, view.missing));
  const tenantId = ctx.tenant.id;
  const changed = await auditedTx(ctx, async (tx, record) => {
    const before = (await getPackConfig(tx, pack.id))?.enabled ?? false;
    if (before === input.enabled) return false;
    await savePackSettings(tx, tenantId, pack.id, { enabled: input.enabled }, ctx.user.id);
    await auditToggle(record, pack.id, input.enabled);
    await requestAutoTestRun(tx, tenantId, "packs");
    return true;
  });
  return { name, changed };
}
