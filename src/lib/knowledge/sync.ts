import "server-only";
import { randomUUID } from "node:crypto";
import type { DbHandle, TenantTx } from "@/lib/db/client";
import { audit } from "@/lib/db/queries/audit";
import { getTenantSettings } from "@/lib/db/queries/bot";
import { claimPages, countUnclaimed, knownPageUrls } from "@/lib/db/queries/knowledge-pages";
import { indexedLanguages } from "@/lib/db/queries/knowledge-search";
import {
  addQueued,
  beginRun,
  failRun,
  finishRunIfDone,
  getSource,
  lockRun,
  markDiscovered,
  type SourceRow,
  setPackLanguages,
} from "@/lib/db/queries/knowledge-sources";
import { isToolWorldError } from "@/lib/errors";
import type { JobQueue, QueueJob } from "@/lib/queue";
import { discover } from "./crawl/discover";
import { normalizePageUrl } from "./crawl/urls";
import { type KnowledgeDeps, PAGE_QUEUE, type PageJob, SYNC_QUEUE, type SyncJob } from "./deps";
import { nextSyncAt, siteChecker } from "./site";

// A sync run of a website source. Starting one gives the source a new run id and enqueues the sync job in the
// same transaction; the sync job reads robots.txt and the sitemap and enqueues one page job per URL (claimed
// once per run, up to the page cap); page jobs may claim more (links, canonicals). The last page job to finish
// ends the run. A newer run makes every job of the older one stop at its first look at the source.

export type Actor = { id: string; email: string } | null;

/** Starts a run (Re-sync now, the schedule, a changed source). Returns the run id. */
export async function startSyncIn(
  tx: TenantTx,
  queue: JobQueue,
  p: { tenantId: string; sourceId: string; actor: Actor; reason: "manual" | "schedule" | "settings" },
): Promise<string> {
  const runId = randomUUID();
  const row = await beginRun(tx, p.sourceId, runId);
  if (!row) throw new Error("knowledge source not found");
  await queue.sendIn(tx, SYNC_QUEUE, { tenantId: p.tenantId, sourceId: p.sourceId, runId } satisfies SyncJob);
  await audit(tx, {
    tenantId: p.tenantId,
    actor: p.actor,
    action: "knowledge.sync_started",
    target: p.sourceId,
    details: { reason: p.reason },
  });
  return runId;
}

export async function startSync(
  db: DbHandle,
  queue: JobQueue,
  p: { tenantId: string; sourceId: string; actor: Actor; reason: "manual" | "schedule" | "settings" },
): Promise<string> {
  return db.forTenant(p.tenantId, (tx) => startSyncIn(tx, queue, p));
}

/**
 * Claims URLs for the run on the locked source row (so the cap holds across jobs and instances) and enqueues
 * a page job for each, in the caller's transaction.
 */
export async function enqueuePages(
  tx: TenantTx,
  queue: JobQueue,
  source: SourceRow,
  runId: string,
  urls: { url: string; depth: number }[],
  follow: boolean,
): Promise<number> {
  const room = Math.max(0, source.pageCap - source.runQueued);
  const claimed = await claimPages(tx, {
    tenantId: source.tenantId,
    sourceId: source.id,
    runId,
    urls,
    max: room,
  });
  const left = await countUnclaimed(
    tx,
    source.id,
    runId,
    urls.map((u) => u.url),
  );
  await addQueued(tx, source.id, claimed.length, left);
  source.runQueued += claimed.length;
  for (const page of claimed) {
    const job: PageJob = {
      tenantId: source.tenantId,
      sourceId: source.id,
      runId,
      pageId: page.id,
      url: page.url,
      depth: page.depth,
      follow,
    };
    await queue.sendIn(tx, PAGE_QUEUE, job);
  }
  return claimed.length;
}

/** Ends the run when its last page is done, and tells the pack which languages the pages are in. */
export async function finishRun(tx: TenantTx, source: SourceRow, runId: string): Promise<void> {
  const ended = await finishRunIfDone(tx, source.id, runId, nextSyncAt(source.schedule));
  if (ended) await setPackLanguages(tx, await indexedLanguages(tx));
}

/** The sync job: robots.txt, sitemap or start URL, known pages again (so removed ones are noticed). */
export async function runSyncJob(deps: KnowledgeDeps, job: QueueJob<SyncJob>): Promise<void> {
  const { tenantId, sourceId, runId } = job.data;
  const found = await deps.db.forTenant(tenantId, async (tx) => ({
    source: await getSource(tx, sourceId),
    siteDomains: (await getTenantSettings(tx, tenantId))?.siteDomains ?? [],
  }));
  const source = found.source;
  if (!source || source.runId !== runId || source.kind !== "website") return;
  const onSite = siteChecker(found.siteDomains, deps.allowHosts);
  let discovery: Awaited<ReturnType<typeof discover>>;
  try {
    discovery = await discover(deps.fetcher, source, onSite, source.pageCap * 2 + 100);
  } catch (err) {
    // A robots.txt or sitemap that ran out its time limit is not asked again at once: the next sync will.
    const timedOut = isToolWorldError(err) && err.timedOut;
    if (!timedOut && job.retryCount < job.retryLimit) throw err;
    const reason = isToolWorldError(err) ? err.message : "The site could not be read";
    await deps.db.forTenant(tenantId, (tx) =>
      failRun(tx, sourceId, runId, reason, nextSyncAt(source.schedule)),
    );
    return;
  }
  await deps.db.forTenant(tenantId, async (tx) => {
    const locked = await lockRun(tx, sourceId, runId);
    if (!locked) return;
    await markDiscovered(tx, sourceId, runId, discovery.robotsTxt, discovery.notice);
    const known = await knownPageUrls(tx, sourceId);
    const seen = new Set<string>();
    const urls: { url: string; depth: number }[] = [];
    for (const [i, raw] of [...discovery.urls, ...known].entries()) {
      const url = normalizePageUrl(raw);
      if (!url || seen.has(url)) continue;
      seen.add(url);
      urls.push({ url, depth: i < discovery.urls.length ? 0 : 1 });
    }
    await enqueuePages(tx, deps.queue, locked, runId, urls, discovery.followLinks);
    await finishRun(tx, locked, runId);
  });
}
