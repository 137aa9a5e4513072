import "server-only";
import { z } from "zod";
import type { ActionState, TenantContext } from "@/lib/auth/guard";
import type { TenantTx } from "@/lib/db/client";
import { audit } from "@/lib/db/queries/audit";
import { getTenantSettings } from "@/lib/db/queries/bot";
import { getPackConfig, listPackConfigs } from "@/lib/db/queries/packs";
import { AppError } from "@/lib/errors";
import type { LookupFn } from "@/lib/security/url-policy";
import { CLEAR_SUFFIX, validatePackConfig } from "@/lib/tools/config";
import { savePackSettings } from "@/lib/tools/config-store";
import type { ConfigField, ToolPack } from "@/lib/tools/contract";
import {
  clientFields,
  configToValues,
  type FieldValues,
  readSubmission,
  type SecretState,
  secretInput,
  secretStates,
  toValidatorInput,
} from "@/lib/tools/form-data";
import { ALL_PACKS } from "@/lib/tools/index";
import { isTruthy } from "@/shared/parse";
import { testPack } from "./test-pack";

// The Tools page's work, apart from Next so tests can call it with a TenantContext. The page and the actions
// are thin wrappers around these functions.

/** What the page hands to a pack card: plain data only, and for secrets only whether and when they were set. */
export type PackView = {
  id: string;
  label: string;
  summary: string | null;
  category: string;
  fields: ConfigField[];
  enabled: boolean;
  values: FieldValues;
  secrets: Record<string, SecretState>;
  updatedAt: string | null;
};

export type PackGroup = { category: string; packs: PackView[] };

export const OTHER_CATEGORY = "More tools";

export type ToolsDeps = {
  packs?: readonly ToolPack[];
  /** Injected by tests; DNS otherwise. */
  lookup?: LookupFn;
  allowHosts?: readonly string[];
};

/** Every registered pack with the tenant's saved state, grouped by category in registration order. */
export async function loadPackGroups(ctx: TenantContext, deps: ToolsDeps = {}): Promise<PackGroup[]> {
  const packs = deps.packs ?? ALL_PACKS;
  const rows = await ctx.db.forTenant(ctx.tenant.id, (tx) => listPackConfigs(tx));
  const byId = new Map(rows.map((r) => [r.packId, r]));
  const groups = new Map<string, PackView[]>();
  for (const pack of packs) {
    const row = byId.get(pack.id);
    const category = pack.category?.trim() || OTHER_CATEGORY;
    const view: PackView = {
      id: pack.id,
      label: pack.label,
      summary: pack.summary ?? null,
      category,
      fields: clientFields(pack.configFields),
      enabled: row?.enabled ?? false,
      values: configToValues(pack.configFields, row?.config),
      secrets: secretStates(pack.configFields, row?.secrets),
      updatedAt: row?.updatedAt ? row.updatedAt.toISOString() : null,
    };
    groups.set(category, [...(groups.get(category) ?? []), view]);
  }
  return [...groups].map(([category, list]) => ({ category, packs: list }));
}

export const saveSchema = z.object({
  packId: z.string().min(1).max(64),
  enabled: z.preprocess(isTruthy, z.boolean()),
});

function findPack(packs: readonly ToolPack[], id: string): ToolPack {
  const pack = packs.find((p) => p.id === id);
  if (!pack) throw new AppError("not_found", "This tool pack does not exist.");
  return pack;
}

async function auditToggle(ctx: TenantContext, tx: TenantTx, packId: string, on: boolean) {
  await audit(tx, {
    tenantId: ctx.tenant.id,
    actor: ctx.user,
    action: on ? "pack.enabled" : "pack.disabled",
    target: packId,
  });
}

/**
 * Saves one pack's form: the enable switch and every field, validated together (field rules, the url policy,
 * the tenant's site domains). Nothing is stored when anything is invalid, with one exception: turning a pack
 * off always works, so a config that stopped validating (a domain removed) cannot keep a pack on.
 */
export async function savePackForm(
  ctx: TenantContext,
  input: z.infer<typeof saveSchema>,
  fd: FormData,
  deps: ToolsDeps = {},
): Promise<ActionState> {
  const pack = findPack(deps.packs ?? ALL_PACKS, input.packId);
  const tenantId = ctx.tenant.id;
  const submission = readSubmission(pack.configFields, fd);
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
  const actor = { id: ctx.user.id, email: ctx.user.email };

  if (!checked.ok) {
    if (!input.enabled && existing?.enabled) {
      await ctx.db.forTenant(tenantId, async (tx) => {
        await savePackSettings(tx, tenantId, pack.id, { enabled: false }, ctx.user.id);
        await auditToggle(ctx, tx, pack.id, false);
      });
      return {
        ok: false,
        message: `${pack.label}: turned off. Your other changes were not saved; please correct the highlighted fields.`,
        fieldErrors: checked.fieldErrors,
      };
    }
    return {
      ok: false,
      message: "Nothing was saved. Please correct the highlighted fields.",
      fieldErrors: checked.fieldErrors,
    };
  }

  const changed = await ctx.db.forTenant(tenantId, async (tx) => {
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
    if (changedFields.includes("enabled")) await auditToggle(ctx, tx, pack.id, input.enabled);
    const fields = changedFields.filter((f) => f !== "enabled").sort();
    if (fields.length > 0) {
      // Field names only: values (and above all secrets) never enter the audit log.
      await audit(tx, { tenantId, actor, action: "pack.config_saved", target: pack.id, details: { fields } });
    }
    return changedFields;
  });
  return {
    ok: true,
    message: changed.length === 0 ? "No changes to save." : `${pack.label}: saved.`,
  };
}

export const testSchema = z.object({
  packId: z.string().min(1).max(64),
  args: z
    .string()
    .default("{}")
    .transform((v) => v.trim() || "{}")
    .pipe(z.string().max(2000, "Keep the test arguments under 2,000 characters")),
});

/** Parses the test arguments: a JSON object, or a message the admin can act on. */
export function parseTestArgs(
  raw: string,
): { ok: true; args: Record<string, unknown> } | { ok: false; message: string } {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { ok: false, message: 'Enter the arguments as JSON, for example {} or {"query": "cake"}' };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return {
      ok: false,
      message: 'The arguments must be a JSON object in braces, for example {"query": "cake"}',
    };
  return { ok: true, args: value as Record<string, unknown> };
}

/** Runs a pack with its saved settings and returns what the model would see, for the Test panel. */
export async function runPackTest(
  ctx: TenantContext,
  input: z.infer<typeof testSchema>,
  deps: Pick<ToolsDeps, "packs"> = {},
): Promise<ActionState> {
  const pack = findPack(deps.packs ?? ALL_PACKS, input.packId);
  const parsed = parseTestArgs(input.args);
  if (!parsed.ok)
    return { ok: false, message: "The test did not run.", fieldErrors: { args: parsed.message } };
  const r = await testPack(ctx.db, ctx.tenant.id, pack.id, parsed.args);
  return {
    ok: true,
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
}
