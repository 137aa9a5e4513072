import "server-only";
import { z } from "zod";
import { assertRole, type TenantContext } from "../auth/access";
import { getPackConfig, recordPackTest } from "../db/queries/packs";
import { env } from "../env";
import { AppError } from "../errors";
import { knowledgeSearcherFor } from "../knowledge/searcher";
import { log } from "../log";
import { openPackConfig } from "../tools/config-store";
import type { ToolArgs, ToolPack } from "../tools/contract";
import { findPack } from "../tools/index";
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
 * the pack's row for the Tools list. For admins and owners: a test run calls the pack's real service.
 */
export async function testPack(
  ctx: TenantContext,
  packId: string,
  args: ToolArgs,
  deps: { packs?: readonly ToolPack[] } = {},
): Promise<TestPackResult> {
  assertRole(ctx, "admin");
  const pack = findPack(packId, deps.packs);
  if (!pack) throw new AppError("not_found", "There is no such tool pack.");
  // A pack that acts for the visitor sends only after a visitor's Confirm on a card, never from here.
  if (pack.confirm)
    throw new AppError(
      "invalid_input",
      "This tool sends something for the visitor, only after they confirm it in the chat; it is not run from the Test panel.",
    );
  const tenantId = ctx.tenant.id;
  const row = await ctx.db.forTenant(tenantId, (tx) => getPackConfig(tx, packId));
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
      knowledge: knowledgeSearcherFor(ctx.db),
    },
    timeoutMs: env().MICHI_TOOL_TIMEOUT_MS,
    maxChars: env().MICHI_TOOL_RESULT_MAX_CHARS,
  });
  await ctx.db.forTenant(tenantId, (tx) => recordPackTest(tx, pack.id, record.outcome));
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
