import "server-only";
import { z } from "zod";
import type { ActionState, TenantContext } from "@/lib/auth/guard";
import type { DbHandle } from "../db/client";
import { getPackConfig, recordPackTest } from "../db/queries/packs";
import { env } from "../env";
import { AppError } from "../errors";
import { log } from "../log";
import { argFields, readArgs } from "../tools/arg-form";
import { openPackConfig } from "../tools/config-store";
import type { ToolArgs, ToolPack } from "../tools/contract";
import { ALL_PACKS, findPack } from "../tools/index";
import { definitionFor, runToolCall } from "../tools/runtime";
import { estimateTokens } from "../tools/tokens";

export type TestPackResult = {
  result: string;
  chars: number;
  tokens: number;
  label: string;
  outcome: string;
  durationMs: number;
};

/**
 * Runs a pack with the tenant's saved config (enabled or not) through the same wrapper the chat uses, so the
 * admin sees exactly what the model would see, with its size in characters and tokens. The outcome is kept on
 * the pack's row for the Tools list.
 */
export async function testPack(
  db: DbHandle,
  tenantId: string,
  packId: string,
  args: ToolArgs,
): Promise<TestPackResult> {
  const pack = findPack(packId);
  if (!pack) throw new AppError("not_found", "There is no such tool pack.");
  const row = await db.forTenant(tenantId, (tx) => getPackConfig(tx, packId));
  let config: ReturnType<typeof openPackConfig>;
  try {
    config = openPackConfig(pack, tenantId, row ?? { config: {}, secrets: {} });
  } catch {
    throw new AppError("invalid_input", "Save this pack's settings before testing it.");
  }
  const record = await runToolCall({
    call: { id: `test_${Date.now().toString(36)}`, name: pack.id, arguments: JSON.stringify(args ?? {}) },
    enabled: [{ pack, config, definition: definitionFor(pack, config) }],
    ctx: {
      tenantId,
      conversationId: null,
      signal: new AbortController().signal,
      log: log().child({ tenantId, packId, test: true }),
    },
    timeoutMs: env().MICHI_TOOL_TIMEOUT_MS,
    maxChars: env().MICHI_TOOL_RESULT_MAX_CHARS,
  });
  await db.forTenant(tenantId, (tx) => recordPackTest(tx, pack.id, record.outcome));
  return {
    result: record.result,
    chars: record.resultChars,
    tokens: estimateTokens(record.result),
    label: record.label,
    outcome: record.outcome,
    durationMs: record.durationMs,
  };
}

export const testSchema = z.object({ packId: z.string().min(1).max(64) });

/**
 * The Test panel's action: reads the argument form generated from the pack's parameters (plain-language
 * errors next to each input, nothing run while one is wrong), then runs the pack.
 */
export async function runPackTest(
  ctx: TenantContext,
  input: z.infer<typeof testSchema>,
  fd: FormData,
  deps: { packs?: readonly ToolPack[] } = {},
): Promise<ActionState> {
  const pack = (deps.packs ?? ALL_PACKS).find((p) => p.id === input.packId);
  if (!pack) throw new AppError("not_found", "This tool pack does not exist.");
  const read = readArgs(argFields(pack.definition.function.parameters), fd);
  if (!read.ok) return { ok: false, message: "The test did not run.", fieldErrors: read.fieldErrors };
  const r = await testPack(ctx.db, ctx.tenant.id, pack.id, read.args);
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
