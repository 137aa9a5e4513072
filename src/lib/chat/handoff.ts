import "server-only";
import type { DbHandle } from "../db";
import { insertHandoff } from "../db/queries/leads";
import type { Logger } from "../log";
import type { ToolRunRecord } from "../tools/runtime";

/** The pack whose successful run means "show the visitor the contact form" (see its `ui`). */
const HANDOFF_PACK = "request_human";

/**
 * After a stored turn in which the assistant offered a person (request_human ran), puts a hand-off request
 * in the Inbox; the visitor's form, if they send it, completes that same item. A failure here is logged and
 * does not touch the answer the visitor already has.
 */
export async function recordHandoff(
  db: DbHandle,
  turn: { tenantId: string; conversationId: string; messageId: string; lang?: string },
  runs: ToolRunRecord[],
  log: Logger,
): Promise<void> {
  if (!runs.some((r) => r.packId === HANDOFF_PACK && r.outcome === "ok")) return;
  try {
    await db.forTenant(turn.tenantId, (tx) =>
      insertHandoff(tx, {
        tenantId: turn.tenantId,
        conversationId: turn.conversationId,
        messageId: turn.messageId,
        locale: turn.lang ?? "",
      }),
    );
  } catch (err) {
    log.error({ err }, "could not record the hand-off request");
  }
}
