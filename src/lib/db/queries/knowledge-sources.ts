import "server-only";
import { and, eq, sql } from "drizzle-orm";
import type { Db, TenantTx } from "../client";
import { rowsOf } from "../client";
import { knowledgeSources, type SyncSchedule } from "../schema";

// A business's knowledge sources and the bookkeeping of their sync runs, as plain rows. What a run does lives
// in src/lib/knowledge; here only the statements, each under the caller's tenant transaction.

export type SourceRow = typeof knowledgeSources.$inferSelect;

export async function getSource(tx: TenantTx, id: string): Promise<SourceRow | null> {
  const [row] = await tx.select().from(knowledgeSources).where(eq(knowledgeSources.id, id));
  return row ?? null;
}

export async function getWebsiteSource(tx: TenantTx): Promise<SourceRow | null> {
  const [row] = await tx.select().from(knowledgeSources).where(eq(knowledgeSources.kind, "website"));
  return row ?? null;
}

export type WebsiteSettings = {
  startUrl: string | null;
  sitemapUrl: string | null;
  includePatterns: string[];
  excludePatterns: string[];
  pageCap: number;
  schedule: SyncSchedule;
  nextSyncAt: Date | null;
};

/** Creates or changes the business's one website source. */
export async function saveWebsiteSource(
  tx: TenantTx,
  tenantId: string,
  s: WebsiteSettings,
): Promise<SourceRow> {
  const [row] = await tx
    .insert(knowledgeSources)
    .values({ tenantId, kind: "website", title: s.startUrl ?? s.sitemapUrl ?? "", ...s })
    .onConflictDoUpdate({
      target: knowledgeSources.tenantId,
      targetWhere: sql`kind = 'website'`,
      set: { ...s, title: s.startUrl ?? s.sitemapUrl ?? "", updatedAt: sql`now()` },
    })
    .returning();
  return row!;
}

/** A new run replaces whatever run was going: jobs of the old one find their run id stale and stop. */
export async function beginRun(tx: TenantTx, id: string, runId: string): Promise<SourceRow | null> {
  const [row] = await tx
    .update(knowledgeSources)
    .set({
      runId,
      syncState: "queued",
      runStartedAt: sql`now()`,
      runQueued: 0,
      runDone: 0,
      runOverCap: 0,
      lastSyncError: null,
    })
    .where(eq(knowledgeSources.id, id))
    .returning();
  return row ?? null;
}

/** Locks the source row for the run (claims and counters of one run are serialised on it). */
export async function lockRun(tx: TenantTx, id: string, runId: string): Promise<SourceRow | null> {
  const rows = await rowsOf<{ id: string }>(
    tx,
    sql`select id from knowledge_sources where id = ${id} and run_id = ${runId} for update`,
  );
  if (rows.length === 0) return null;
  return getSource(tx, id);
}

export async function markDiscovered(
  tx: TenantTx,
  id: string,
  runId: string,
  robotsTxt: string,
  notice: string | null,
): Promise<void> {
  await tx
    .update(knowledgeSources)
    .set({ syncState: "syncing", robotsTxt, lastSyncError: notice })
    .where(and(eq(knowledgeSources.id, id), eq(knowledgeSources.runId, runId)));
}

export async function addQueued(tx: TenantTx, id: string, queued: number, overCap: number): Promise<void> {
  await tx
    .update(knowledgeSources)
    .set({
      runQueued: sql`${knowledgeSources.runQueued} + ${queued}`,
      runOverCap: sql`${knowledgeSources.runOverCap} + ${overCap}`,
    })
    .where(eq(knowledgeSources.id, id));
}

/** Counts one page of the run as done; answers whether it was the last one. */
export async function countPageDone(tx: TenantTx, id: string, runId: string): Promise<boolean> {
  const rows = await rowsOf<{ last: boolean }>(
    tx,
    sql`update knowledge_sources set run_done = run_done + 1
        where id = ${id} and run_id = ${runId}
        returning run_done >= run_queued as last`,
  );
  return rows[0]?.last ?? false;
}

/** Ends the run if every page it queued is done (also for a run that queued nothing). */
export async function finishRunIfDone(
  tx: TenantTx,
  id: string,
  runId: string,
  nextSyncAt: Date | null,
): Promise<boolean> {
  const rows = await rowsOf<{ id: string }>(
    tx,
    sql`update knowledge_sources set sync_state = 'idle', last_sync_at = now(), next_sync_at = ${nextSyncAt}
        where id = ${id} and run_id = ${runId} and sync_state <> 'idle' and run_done >= run_queued
        returning id`,
  );
  return rows.length > 0;
}

export async function failRun(tx: TenantTx, id: string, runId: string, reason: string, next: Date | null) {
  await tx
    .update(knowledgeSources)
    .set({ syncState: "idle", lastSyncError: reason, lastSyncAt: sql`now()`, nextSyncAt: next })
    .where(and(eq(knowledgeSources.id, id), eq(knowledgeSources.runId, runId)));
}

/**
 * Reserves the next request slot for the source's host, `intervalMs` after the previous one, shared by every
 * instance through the row. Returns how long to wait before the request may start.
 */
export async function reserveFetchSlot(tx: TenantTx, id: string, intervalMs: number): Promise<number> {
  const rows = await rowsOf<{ wait_ms: number }>(
    tx,
    sql`update knowledge_sources
        set next_fetch_at = greatest(next_fetch_at, clock_timestamp()) + make_interval(secs => ${intervalMs / 1000})
        where id = ${id}
        returning greatest(0, extract(epoch from (next_fetch_at - make_interval(secs => ${intervalMs / 1000}) - clock_timestamp())) * 1000)::int as wait_ms`,
  );
  return rows[0]?.wait_ms ?? 0;
}

// When a source's scheduled sync is due: a website on a schedule whose time has come, of an active business
// whose knowledge pack is on, and with no run going (a run that started over a day ago counts as abandoned, so
// a lost run cannot hold the schedule forever). The run that is going sets the next time when it ends.
const DUE = sql`s.kind = 'website' and s.schedule <> 'off' and s.next_sync_at <= now()
  and (s.sync_state = 'idle' or s.run_started_at is null or s.run_started_at < now() - interval '1 day')`;

/**
 * Platform work: the candidates for the schedule's sweep, oldest due first. Nothing is taken here: each one
 * is taken (`takeDueSource`) in the transaction that starts its run, so a run that fails to start leaves the
 * source due for the next sweep.
 */
export async function listDueSources(db: Db, limit = 20): Promise<{ tenantId: string; id: string }[]> {
  return rowsOf<{ tenantId: string; id: string }>(
    db,
    sql`select s.tenant_id as "tenantId", s.id from knowledge_sources s
        join tenants t on t.id = s.tenant_id and t.status = 'active'
        join pack_configs p on p.tenant_id = s.tenant_id and p.pack_id = 'search_knowledge' and p.enabled
        where ${DUE}
        order by s.next_sync_at limit ${limit}`,
  );
}

/**
 * In the tenant transaction that starts the run: locks the source if it is still due and no other instance
 * holds it (skip locked), and moves its next sync on by the schedule. Null when another instance took it
 * first: its transaction either still holds the row or has already moved next_sync_at past now.
 */
export async function takeDueSource(
  tx: TenantTx,
  id: string,
  next: (schedule: SyncSchedule) => Date | null,
): Promise<SourceRow | null> {
  const rows = await rowsOf<{ id: string }>(
    tx,
    sql`select s.id from knowledge_sources s where s.id = ${id} and ${DUE} for update skip locked`,
  );
  if (rows.length === 0) return null;
  const row = await getSource(tx, id);
  if (!row) return null;
  const [taken] = await tx
    .update(knowledgeSources)
    .set({ nextSyncAt: next(row.schedule) })
    .where(eq(knowledgeSources.id, id))
    .returning();
  return taken ?? null;
}

/**
 * Writes the languages of the indexed pages into the search_knowledge pack's settings, which its description
 * names for the model. Written only when they changed; the settings' time moves so the pack row is re-read.
 */
export async function setPackLanguages(tx: TenantTx, langs: string[]): Promise<void> {
  await tx.execute(
    sql`update pack_configs set config = jsonb_set(config, '{languages}', ${JSON.stringify(langs)}::jsonb), updated_at = now()
        where pack_id = 'search_knowledge' and config->'languages' is distinct from ${JSON.stringify(langs)}::jsonb`,
  );
}
