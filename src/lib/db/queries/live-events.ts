import "server-only";
import { sql } from "drizzle-orm";
import type { LiveEvent, LiveEventData, LiveKind } from "@/shared/live-events";
import { type DbHandle, rowsOf, type TenantTx } from "../client";

// The live log (drizzle/0027). Appends run inside the caller's tenant transaction, so an event is stored with
// the change it reports or not at all; streams read after a seq (src/lib/live/stream.ts).

/** Postgres channel of the wake-ups: the payload is "<tenant id>:<conversation id>", never content. */
export const LIVE_CHANNEL = "michi_live";

/**
 * Appends one event to the log in `tx` (a tenant transaction) and returns its seq, through the SQL function
 * michi_append_live_event (drizzle/0027), which the turn's SQL functions call too: appends of one tenant take
 * turns until their transaction ends, so seq order is commit order (append as the transaction's last
 * statement), and the wake-up (pg_notify) is delivered by Postgres when `tx` commits, to every instance.
 * The conversation must be the tenant's, else it throws. Call `wakeLive` (src/lib/live/bus.ts) after the
 * commit too, for this process's streams and for Redis.
 */
export async function appendLiveEvent<K extends LiveKind>(
  tx: TenantTx,
  input: { conversationId: string; kind: K; data: LiveEventData[K] },
): Promise<number> {
  const rows = await rowsOf<{ seq: string | number }>(
    tx,
    sql`select michi_append_live_event(${input.conversationId}::uuid, ${input.kind}, ${JSON.stringify(input.data)}::jsonb) as seq`,
  );
  return Number(rows[0]?.seq);
}

/**
 * The tenant's events after `after`, oldest first, at most `limit`: one conversation's when `conversationId`
 * is given (the visitor's stream), the whole tenant's otherwise (the console), only of `kinds` when given.
 * One round trip (michi_read_live_events enters the tenant itself, drizzle/0027): every held stream reads on
 * every wake-up of its conversation, so this is the transport's hottest statement (npm run bench, live).
 */
export async function readLiveEvents(
  db: DbHandle,
  tenantId: string,
  input: { after: number; conversationId?: string; kinds?: readonly LiveKind[]; limit: number },
): Promise<LiveEvent[]> {
  const rows = await db.tenantCall<LiveEvent[]>("michi_read_live_events", tenantId, [
    input.after,
    input.conversationId ?? null,
    input.kinds ? [...input.kinds] : null,
    input.limit,
  ]);
  return rows ?? [];
}

/** The tenant's newest seq (0 for an empty log): where a console that has seen nothing yet starts. */
export async function liveTail(tx: TenantTx): Promise<number> {
  const rows = await rowsOf<{ seq: string | number | null }>(
    tx,
    sql`select max(seq) as seq from live_events where tenant_id = michi_current_tenant()`,
  );
  return Number(rows[0]?.seq ?? 0);
}
