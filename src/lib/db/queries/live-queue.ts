import "server-only";
import { sql } from "drizzle-orm";
import { rowsOf, type TenantTx } from "../client";

// The queue of visitors waiting for a person with nobody assigned yet (issue #28), and the lock that makes
// handing them out one decision at a time per business. Tenant path only.

// The two-key form of pg_advisory_xact_lock has a key space of its own, apart from the one-key locks of the
// migrator and the purge. The first key names this lock; the second is the tenant.
const ASSIGN_LOCK_CLASS = 4_242_028;

/**
 * Until `tx` ends, nobody else hands out this business's waiting visitors. Every decision that reads the
 * agents' load and then gives one a conversation holds it, or two of them at once (two instances, or two
 * agents freeing a slot in the same instant) could both count the same free slot.
 */
export async function lockAssignments(tx: TenantTx, tenantId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${ASSIGN_LOCK_CLASS}::int, hashtext(${tenantId}))`);
}

/** Whether any visitor waits with nobody assigned: the cheap look before taking the lock. */
export async function anyoneUnassigned(tx: TenantTx, tenantId: string): Promise<boolean> {
  const rows = await rowsOf<{ one: number }>(
    tx,
    sql`select 1 as one from conversations
      where tenant_id = ${tenantId} and live_state = 'waiting' and live_agent_id is null limit 1`,
  );
  return rows.length > 0;
}

/**
 * The oldest waiting, unassigned conversations, locked for the rest of `tx`. A row locked by someone else
 * right now (its visitor's message being stored, or a teammate acting on it) is skipped rather than waited
 * for: that someone may be waiting for the assignment lock this transaction holds, and the next moment a
 * slot frees (or the next console heartbeat) looks again.
 */
export async function lockOldestUnassigned(tx: TenantTx, tenantId: string, limit: number): Promise<string[]> {
  const rows = await rowsOf<{ id: string }>(
    tx,
    sql`select id from conversations
      where tenant_id = ${tenantId} and live_state = 'waiting' and live_agent_id is null
      order by live_requested_at asc nulls last, id asc
      limit ${limit}
      for update skip locked`,
  );
  return rows.map((r) => r.id);
}
