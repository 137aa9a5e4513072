import "server-only";
import { desc, sql } from "drizzle-orm";
import { isUuid } from "@/shared/parse";
import type { DbHandle, TenantTx } from "../client";
import { auditLog } from "../schema";

// The audit trail of a tenant. Entries say who did what to which thing; details carry names (fields changed,
// old and new role), never values of secrets or passwords.

export type AuditActor = { id: string; email: string } | null;

export type AuditEntry = {
  tenantId: string;
  actor: AuditActor;
  action: string;
  target?: string;
  details?: Record<string, unknown>;
};

/** Writes one entry inside the caller's tenant transaction, so it commits or rolls back with the change. */
export async function audit(tx: TenantTx, entry: AuditEntry): Promise<void> {
  await tx.insert(auditLog).values({
    tenantId: entry.tenantId,
    actorUserId: entry.actor?.id ?? null,
    actorLabel: entry.actor?.email ?? "system",
    action: entry.action,
    target: entry.target ?? "",
    details: entry.details ?? {},
  });
}

/** Records one entry as the transaction's actor, in its tenant; `fn` never repeats who or where. */
export type RecordAudit = (
  action: string,
  entry?: { target?: string; details?: Record<string, unknown> },
) => Promise<void>;

/**
 * A tenant transaction whose work is audited as `actor`: `fn` gets the transaction and a `record` bound to
 * the tenant and the actor, so every entry commits or rolls back with the change it describes.
 */
export function forTenantAudited<T>(
  db: DbHandle,
  tenantId: string,
  actor: AuditActor,
  fn: (tx: TenantTx, record: RecordAudit) => Promise<T>,
): Promise<T> {
  return db.forTenant(tenantId, (tx) =>
    fn(tx, (action, entry = {}) => audit(tx, { tenantId, actor, action, ...entry })),
  );
}

export type AuditRow = typeof auditLog.$inferSelect;

/**
 * One page of entries, newest first. The cursor is the id of the last entry already shown; comparing
 * (created_at, id) against that row keeps the database's full timestamp precision, so no entry is skipped
 * or shown twice when several share a millisecond.
 */
export async function listAudit(
  tx: TenantTx,
  opts: { before?: string | null; limit?: number } = {},
): Promise<{ entries: AuditRow[]; nextCursor: string | null }> {
  const limit = Math.min(Math.max(opts.limit ?? 50, 1), 200);
  const before = isUuid(opts.before) ? opts.before : null;
  const where = before
    ? sql`(${auditLog.createdAt}, ${auditLog.id}) < (select a.created_at, a.id from audit_log a where a.id = ${before})`
    : undefined;
  const rows = await tx
    .select()
    .from(auditLog)
    .where(where)
    .orderBy(desc(auditLog.createdAt), desc(auditLog.id))
    .limit(limit + 1);
  const entries = rows.slice(0, limit);
  const last = entries[entries.length - 1];
  return { entries, nextCursor: rows.length > limit && last ? last.id : null };
}
