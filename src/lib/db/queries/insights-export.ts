import "server-only";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { StoredToolRun } from "@/shared/tool-run";
import type { DbHandle } from "../client";
import { rowsOf, type TenantTx } from "../client";
import { toolRuns } from "../schema";

// The export reads messages in keyset-paginated batches, each in its own short tenant transaction, so a large
// export holds one batch in memory and never a long transaction (PGlite has a single connection). A message
// written during the export with a timestamp before the current position is not included; the export is a
// snapshot of what existed when each batch was read.

export type ExportRow = {
  conversationId: string;
  conversationStartedAt: string;
  visitorId: string;
  origin: string;
  pageUrl: string;
  locale: string;
  messageId: string;
  createdAt: string;
  role: "user" | "assistant";
  content: string;
  status: string;
  reason: string | null;
  model: string | null;
  promptTokens: number;
  completionTokens: number;
  tools: StoredToolRun[];
};

export type ExportRange = { from: Date; until: Date };
type Position = { ts: string; id: string };

const TS = (col: string) => sql.raw(`to_char(${col} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`);

/** One batch of messages created in [from, until) after `after`, oldest first, with their tool runs. */
export async function exportBatch(
  tx: TenantTx,
  tenantId: string,
  range: ExportRange,
  after: Position | null,
  limit: number,
): Promise<{ rows: ExportRow[]; last: Position | null }> {
  const rows = await rowsOf<Omit<ExportRow, "tools">>(
    tx,
    sql`select c.id as "conversationId", ${TS("c.started_at")} as "conversationStartedAt",
          c.visitor_id as "visitorId", c.origin, c.page_url as "pageUrl", c.locale,
          m.id as "messageId", ${TS("m.created_at")} as "createdAt", m.role, m.content, m.status, m.reason,
          m.model, m.prompt_tokens as "promptTokens", m.completion_tokens as "completionTokens"
        from messages m
        join conversations c on c.tenant_id = m.tenant_id and c.id = m.conversation_id
        where m.tenant_id = ${tenantId}
          and m.created_at >= ${range.from.toISOString()}::timestamptz
          and m.created_at < ${range.until.toISOString()}::timestamptz
          ${after ? sql`and (m.created_at, m.id) > (${after.ts}::timestamptz, ${after.id}::uuid)` : sql``}
        order by m.created_at, m.id
        limit ${limit}`,
  );
  if (rows.length === 0) return { rows: [], last: null };

  // Looked up by conversation first so the tool_runs_tenant_conversation_idx index does the narrowing.
  const answerIds = rows.filter((r) => r.role === "assistant").map((r) => r.messageId);
  const runs =
    answerIds.length === 0
      ? []
      : await tx
          .select({
            messageId: toolRuns.messageId,
            packId: toolRuns.packId,
            args: toolRuns.args,
            result: toolRuns.result,
            resultChars: toolRuns.resultChars,
            resultTokens: toolRuns.resultTokens,
            durationMs: toolRuns.durationMs,
            outcome: toolRuns.outcome,
          })
          .from(toolRuns)
          .where(
            and(
              eq(toolRuns.tenantId, tenantId),
              inArray(toolRuns.conversationId, [...new Set(rows.map((r) => r.conversationId))]),
              inArray(toolRuns.messageId, answerIds),
            ),
          )
          .orderBy(toolRuns.createdAt, toolRuns.id);
  const byMessage = new Map<string, StoredToolRun[]>();
  for (const { messageId, ...run } of runs) {
    if (!messageId) continue;
    const list = byMessage.get(messageId) ?? [];
    list.push(run);
    byMessage.set(messageId, list);
  }
  const last = rows[rows.length - 1]!;
  return {
    rows: rows.map((r) => ({
      ...r,
      promptTokens: Number(r.promptTokens),
      completionTokens: Number(r.completionTokens),
      tools: byMessage.get(r.messageId) ?? [],
    })),
    last: { ts: last.createdAt, id: last.messageId },
  };
}

export const EXPORT_BATCH = 500;

/**
 * Yields the tenant's messages in the range batch by batch. The next batch is read only when the consumer
 * asks for it, so a slow download slows the reading instead of filling memory.
 */
export async function* exportBatches(
  db: DbHandle,
  tenantId: string,
  range: ExportRange,
  batchSize = EXPORT_BATCH,
): AsyncGenerator<ExportRow[], void, undefined> {
  let after: Position | null = null;
  for (;;) {
    const batch = await db.forTenant(tenantId, (tx) => exportBatch(tx, tenantId, range, after, batchSize));
    if (batch.rows.length > 0) yield batch.rows;
    if (batch.rows.length < batchSize || !batch.last) return;
    after = batch.last;
  }
}
