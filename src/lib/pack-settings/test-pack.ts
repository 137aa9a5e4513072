import "server-only";
import type { DbHandle } from "../db/client";
import { getPackConfig } from "../db/queries/packs";
import { env } from "../env";
import { AppError } from "../errors";
import { log } from "../log";
import { openPackConfig } from "../tools/config-store";
import type { ToolArgs } from "../tools/contract";
import { findPack } from "../tools/index";
import { definitionFor, runToolCall } from "../tools/runtime";

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
 * admin sees exactly what the model would see, with its size in characters and tokens.
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
  return {
    result: record.result,
    chars: record.resultChars,
    tokens: record.resultTokens,
    label: record.label,
    outcome: record.outcome,
    durationMs: record.durationMs,
  };
}
