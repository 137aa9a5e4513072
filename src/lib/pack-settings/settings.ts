import "server-only";
import { z } from "zod";
import { assertRole, auditedTx, type TenantContext } from "@/lib/auth/access";
import type { RecordAudit } from "@/lib/db/queries/audit";
import { getTenantSettings } from "@/lib/db/queries/bot";
import { getPackConfig, listPackConfigs, type PackConfigRow } from "@/lib/db/queries/packs";
import { requestAutoTestRun } from "@/lib/db/queries/test-questions";
import { AppError } from "@/lib/errors";
import { applyPackConfig, KNOWLEDGE_PACK } from "@/lib/knowledge/sources";
import type { LookupFn } from "@/lib/security/url-policy";
import { type ArgField, argFields, argValues } from "@/lib/tools/arg-form";
import { CLEAR_SUFFIX, validatePackConfig } from "@/lib/tools/config";
import { savePackSettings } from "@/lib/tools/config-store";
import type { ConfigField, ToolPack } from "@/lib/tools/contract";
import {
  clientFields,
  configToValues,
  type FieldValues,
  type SecretState,
  type Submission,
  secretInput,
  secretStates,
  toValidatorInput,
} from "@/lib/tools/form-data";
import { ALL_PACKS } from "@/lib/tools/index";
import { newSigningSecret } from "@/lib/webhooks/events";
import { isTruthy } from "@/shared/parse";

// The Tools page's work, apart from Next so tests can call it with a TenantContext. The page and the actions
// are thin wrappers around these functions; changes are for admins and owners.

/** What the page hands to a pack card: plain data only, and for secrets only whether and when they were set. */
export type PackView = {
  id: string;
  /** The admin-facing name ("Opening hours"); `label` is the chip visitors see. */
  name: string;
  label: string;
  summary: string | null;
  category: string;
  fields: ConfigField[];
  enabled: boolean;
  values: FieldValues;
  secrets: Record<string, SecretState>;
  updatedAt: string | null;
  /**
   * "configured": every required setting has a value; "needs_settings": it cannot run yet; "needs_details":
   * it runs but has nothing to answer from (`missing` says what to fill in).
   */
  status: "configured" | "needs_settings" | "needs_details";
  missing: string | null;
  lastTest: { outcome: string; at: string } | null;
  /** The Test panel's inputs, generated from the model-facing parameters, and the pack's example values. */
  args: ArgField[];
  exampleArgs: Record<string, string>;
};

export type PackGroup = { category: string; packs: PackView[] };

export const OTHER_CATEGORY = "More tools";

export type ToolsDeps = {
  packs?: readonly ToolPack[];
  /** Injected by tests; DNS otherwise. */
  lookup?: LookupFn;
  allowHosts?: readonly string[];
};

/** Ready to run when every required setting has a value (a default counts; a secret counts once it is set). */
function statusOf(fields: readonly ConfigField[], values: FieldValues, secrets: Record<string, SecretState>) {
  const missing = fields.some((f) =>
    !f.required ? false : f.type === "secret" ? !secrets[f.key]?.set : (values[f.key] ?? "").trim() === "",
  );
  return missing ? ("needs_settings" as const) : ("configured" as const);
}

function viewOf(pack: ToolPack, row: PackConfigRow | undefined): PackView {
  const values = configToValues(pack.configFields, row?.config);
  const secrets = secretStates(pack.configFields, row?.secrets);
  const args = argFields(pack.definition.function.parameters);
  const required = statusOf(pack.configFields, values, secrets);
  const missing = pack.lacks?.(row?.config ?? {}) ?? null;
  return {
    id: pack.id,
    name: pack.name?.trim() || pack.label,
    label: pack.label,
    summary: pack.summary ?? null,
    category: pack.category?.trim() || OTHER_CATEGORY,
    fields: clientFields(pack.configFields),
    enabled: row?.enabled ?? false,
    values,
    secrets,
    updatedAt: row?.updatedAt ? row.updatedAt.toISOString() : null,
    status: required === "configured" && missing ? "needs_details" : required,
    missing,
    lastTest:
      row?.lastTestOutcome && row.lastTestAt
        ? { outcome: row.lastTestOutcome, at: row.lastTestAt.toISOString() }
        : null,
    args,
    exampleArgs: argValues(args, pack.example?.args),
  };
}

/** Every registered pack with the tenant's saved state, grouped by category in registration order. */
export async function loadPackGroups(ctx: TenantContext, deps: ToolsDeps = {}): Promise<PackGroup[]> {
  const packs = deps.packs ?? ALL_PACKS;
  const rows = await ctx.db.forTenant(ctx.tenant.id, (tx) => listPackConfigs(tx));
  const byId = new Map(rows.map((r) => [r.packId, r]));
  const groups = new Map<string, PackView[]>();
  for (const pack of packs) {
    const view = viewOf(pack, byId.get(pack.id));
    groups.set(view.category, [...(groups.get(view.category) ?? []), view]);
  }
  return [...groups].map(([category, list]) => ({ category, packs: list }));
}

/** One pack's view for its details page; null when no such pack is registered (the page answers 404). */
export async function loadPackView(
  ctx: TenantContext,
  packId: string,
  deps: Pick<ToolsDeps, "packs"> = {},
): Promise<PackView | null> {
  const pack = (deps.packs ?? ALL_PACKS).find((p) => p.id === packId);
  if (!pack) return null;
  const row = await ctx.db.forTenant(ctx.tenant.id, (tx) => getPackConfig(tx, pack.id));
  return viewOf(pack, row ?? undefined);
}

export const saveSchema = z.object({
  packId: z.string().min(1).max(64),
  enabled: z.preprocess(isTruthy, z.boolean()),
});

export function requirePack(packs: readonly ToolPack[], id: string): ToolPack {
  const pack = packs.find((p) => p.id === id);
  if (!pack) throw new AppError("not_found", "This tool pack does not exist.");
  return pack;
}

/** Why a pack with nothing to answer from stays off: its name and what to fill in. */
export function lacksMessage(name: string, lacking: string): string {
  return `${name} has nothing to answer from yet: fill in ${lacking} before switching it on.`;
}

export async function auditToggle(record: RecordAudit, packId: string, on: boolean) {
  await record(on ? "pack.enabled" : "pack.disabled", { target: packId });
}

/** One pack's form as the edge read it (readSubmission): the enable switch, the values and the secrets. */
export type PackSettingsInput = z.infer<typeof saveSchema> & Submission;

/**
 * Saves one pack's form: the enable switch and every field, validated together (field rules, the url policy,
 * the tenant's site domains). Nothing is stored when anything is invalid, with one exception: turning a pack
 * off always works, so a config that stopped validating (a domain removed) cannot keep a pack on. Invalid
 * fields are an AppError whose field errors are keyed by the pack's config keys.
 */
export async function updatePackSettings(
  ctx: TenantContext,
  input: PackSettingsInput,
  deps: ToolsDeps = {},
): Promise<{ label: string; changed: string[]; shownSecret?: string }> {
  assertRole(ctx, "admin");
  const pack = requirePack(deps.packs ?? ALL_PACKS, input.packId);
  const tenantId = ctx.tenant.id;
  const submission = { values: input.values, secrets: input.secrets };
  const { existing, siteDomains } = await ctx.db.forTenant(tenantId, async (tx) => ({
    existing: await getPackConfig(tx, pack.id),
    siteDomains: (await getTenantSettings(tx, tenantId))?.siteDomains ?? [],
  }));
  // Address checks resolve DNS, so they run outside any transaction.
  const checked = await validatePackConfig(
    pack,
    { ...toValidatorInput(pack.configFields, submission), ...secretInput(submission.secrets, CLEAR_SUFFIX) },
    {
      siteDomains,
      existingSecrets: existing?.secrets ?? {},
      tenantId,
      lookup: deps.lookup,
      allowHosts: deps.allowHosts,
    },
  );

  if (!checked.ok) {
    const fieldErrors = Object.fromEntries(Object.entries(checked.fieldErrors).map(([k, v]) => [k, [v]]));
    if (!input.enabled && existing?.enabled) {
      await auditedTx(ctx, async (tx, record) => {
        await savePackSettings(tx, tenantId, pack.id, { enabled: false }, ctx.user.id);
        await auditToggle(record, pack.id, false);
      });
      throw new AppError(
        "invalid_input",
        `${pack.label}: turned off. Your other changes were not saved; please correct the highlighted fields.`,
        { fieldErrors, turnedOff: true },
      );
    }
    throw new AppError("invalid_input", "Nothing was saved. Please correct the highlighted fields.", {
      fieldErrors,
    });
  }

  const lacking = input.enabled ? (pack.lacks?.(checked.config) ?? null) : null;
  if (lacking) throw new AppError("invalid_input", lacksMessage(pack.name?.trim() || pack.label, lacking));

  // A signing secret the platform makes (post_json): on the first save, shown to the owner this once.
  const made = pack.configFields.find(
    (f) =>
      f.type === "secret" &&
      f.generate === "whsec" &&
      !existing?.secrets[f.key] &&
      !checked.secretsSet[f.key],
  );
  const shownSecret = made ? newSigningSecret() : undefined;
  if (made && shownSecret) checked.secretsSet[made.key] = shownSecret;
  const changed = await auditedTx(ctx, async (tx, record) => {
    const { changedFields } = await savePackSettings(
      tx,
      tenantId,
      pack.id,
      {
        enabled: input.enabled,
        config: checked.config,
        secretsSet: checked.secretsSet,
        secretsClear: checked.secretsClear,
      },
      ctx.user.id,
    );
    if (changedFields.includes("enabled")) await auditToggle(record, pack.id, input.enabled);
    // The search_knowledge pack's fields are the website source: saving them may start a sync.
    if (pack.id === KNOWLEDGE_PACK && changedFields.length > 0)
      await applyPackConfig(
        tx,
        {
          tenantId,
          config: checked.config,
          enabled: input.enabled,
          actor: ctx.user,
        },
        { operatorCap: ctx.tenant.knowledgePageCap },
      );
    const fields = changedFields.filter((f) => f !== "enabled").sort();
    // Field names only: values (and above all secrets) never enter the audit log.
    if (fields.length > 0) await record("pack.config_saved", { target: pack.id, details: { fields } });
    if (changedFields.length > 0) await requestAutoTestRun(tx, tenantId, "packs");
    return changedFields;
  });
  return { label: pack.label, changed, ...(shownSecret ? { shownSecret } : {}) };
}
