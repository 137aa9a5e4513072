import "server-only";
import { sql } from "drizzle-orm";
import { rowsOf, type TenantTx } from "../client";

// The line of visitors waiting for a person with nobody to answer them yet (issue #28): nobody assigned, or
// an agent the round-robin chose who has left since. And the lock that makes handing them out one decision
// at a time per business. Tenant path only.

// The lock is the live log's own per-tenant append lock (drizzle/0027, michi_append_live_event): every
// state change appends to the log, so it already holds this lock when it serves the queue, and taking one
// lock, never two, leaves no order in which two transactions could wait for each other.
const LIVE_LOG_LOCK = 4_242_027;

/**
 * Until `tx` ends, nobody else hands out this business's waiting visitors (nor appends to its live log).
 * Every decision that reads the agents' load and then gives one a conversation holds it, or two of them at
 * once (two instances, or two agents freeing a slot in the same instant) could both count the same free
 * slot. Whoever holds it must not wait for a row: others wait for it while holding theirs.
 */
export async function lockAssignments(tx: TenantTx, tenantId: string): Promise<void> {
  await tx.execute(
    sql`select pg_advisory_xact_lock(${LIVE_LOG_LOCK}::int, hashtext(${tenantId}::uuid::text))`,
  );
}

/**
 * Waiting with nobody who can answer: nobody assigned, or the round-robin's choice of an agent who is no
 * longer online (no heartbeat since `since`, set away, or no longer an admin or owner). A teammate chosen by a
 * person stays assigned, online or not: the one who chose may have meant it.
 */
const inLine = (since: Date) => sql`c.live_state = 'waiting' and (c.live_agent_id is null or (
    c.live_auto_assigned and not exists (
      select 1 from live_presence p
        join memberships m on m.tenant_id = p.tenant_id and m.user_id = p.user_id
      where p.tenant_id = c.tenant_id and p.user_id = c.live_agent_id and not p.away
        and p.seen_at > ${since.toISOString()}::timestamptz and m.role in ('owner', 'admin'))))`;

/** Whether any visitor waits in line (see inLine): the cheap look before taking the lock. */
export async function anyoneInLine(tx: TenantTx, tenantId: string, since: Date): Promise<boolean> {
  const rows = await rowsOf<{ one: number }>(
    tx,
    sql`select 1 as one from conversations c where c.tenant_id = ${tenantId} and ${inLine(since)} limit 1`,
  );
  return rows.length > 0;
}

/**
 * The oldest conversations in line, locked for the rest of `tx`, each with the agent it had (the one who
 * left, or null). A row locked by someone else right now (its visitor's message being stored, or a teammate
 * acting on it) is skipped rather than waited for: that someone may be waiting for the assignment lock this
 * transaction holds, and the next moment a slot frees (or the next console heartbeat) looks again.
 */
export async function lockOldestInLine(
  tx: TenantTx,
  tenantId: string,
  limit: number,
  since: Date,
): Promise<{ id: string; from: string | null }[]> {
  return rowsOf<{ id: string; from: string | null }>(
    tx,
    sql`select c.id, c.live_agent_id as "from" from conversations c
      where c.tenant_id = ${tenantId} and ${inLine(since)}
      order by c.live_requested_at asc nulls last, c.id asc
      limit ${limit}
      for update of c skip locked`,
  );
}

/**
 * Round-robin under the lock: the agent just given a conversation goes to the back of the line, unless their
 * presence row is being written this instant (their own heartbeat or claim, which may be waiting for this
 * transaction's lock). Then the line is left as it is rather than waited for: only the order of the next
 * turn is at stake, never the load, which is counted from the conversations.
 */
export async function markAssignedUnlessBusy(tx: TenantTx, tenantId: string, userId: string): Promise<void> {
  await tx.execute(
    sql`update live_presence p set last_assigned_at = clock_timestamp()
      from (select tenant_id, user_id from live_presence
        where tenant_id = ${tenantId} and user_id = ${userId} for update skip locked) r
      where p.tenant_id = r.tenant_id and p.user_id = r.user_id`,
  );
}
