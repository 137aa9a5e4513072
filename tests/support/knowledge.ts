import { sql } from "drizzle-orm";
import { expect } from "vitest";
import type { DbHandle } from "@/lib/db/client";
import { rowsOf } from "@/lib/db/client";
import { saveWebsiteSource } from "@/lib/db/queries/knowledge-sources";
import type { KnowledgeDeps } from "@/lib/knowledge/deps";
import { chunkSections, extractDocument, searchText } from "@/lib/knowledge/extract";
import { createExtractPool } from "@/lib/knowledge/extract-pool";
import { startSync } from "@/lib/knowledge/sync";
import { knowledgeWorkers } from "@/lib/knowledge/worker";
import { type JobQueue, type QueueWorker, startQueue } from "@/lib/queue";
import { createPageFetcher, type PageFetcher } from "@/lib/security/fetch-text";
import { deferred } from "./deferred";
import type { FixtureSite } from "./fixture-site";

// The knowledge jobs for integration tests: the real pg-boss workers on the test database polling twice a
// second, a page fetcher that trusts the fixture site's CA and allows its localhost port, no politeness wait
// (the slot arithmetic still runs; `sleeps` records what the crawler would have waited).

export const TEST_KNOWLEDGE_POLICY = { retryLimit: 1, retryDelaySeconds: 1, expireInSeconds: 30 };

export type KnowledgeInstance = {
  queue: JobQueue;
  deps: KnowledgeDeps;
  sleeps: number[];
  /** Page fetches held back by `hold` right now (their jobs are active, nothing reached the site yet). */
  held(): number;
  /** Lets the held fetches, and every later one, go to the site. */
  release(): void;
  /**
   * Plays the process dying: its running jobs never finish, fail or write again, so pg-boss keeps them
   * active until they expire, and its held fetches never reach the site. Only `stop` (teardown) lays them to
   * rest, as failures pg-boss ignores for jobs another instance completed.
   */
  crash(): void;
  stop(): Promise<void>;
};

export async function startKnowledgeInstance(
  db: DbHandle,
  site: Pick<FixtureSite, "host" | "caPem">,
  /** `hold`: the page URLs whose fetch waits for `release()` (robots.txt and sitemaps are never held). */
  opts: {
    worker?: boolean;
    hold?: (url: string) => boolean;
    alsoSites?: Pick<FixtureSite, "host" | "caPem">[];
    /** Each request's time limit (10 s unless a test of timeouts shortens it). */
    timeoutMs?: number;
  } = {},
): Promise<KnowledgeInstance> {
  // A second fixture site stands for the business's other host (example.com redirecting to www.example.com).
  const sites = [site, ...(opts.alsoSites ?? [])];
  const allowHosts = sites.map((s) => s.host);
  const extraCaPem = sites.map((s) => s.caPem).join("\n");
  const real = createPageFetcher({ allowHosts, extraCaPem, timeoutMs: opts.timeoutMs ?? 10_000 });
  let gate = opts.hold ? deferred() : null;
  let held = 0;
  let dead = false;
  const crashed = deferred();
  const buried = deferred();
  const fetcher: PageFetcher = {
    async fetchPage(url, o) {
      if (gate && opts.hold?.(url)) {
        held += 1;
        await gate.promise;
        held -= 1;
      }
      if (dead) throw new Error("this instance crashed");
      return real.fetchPage(url, o);
    },
    close: () => real.close(),
  };
  const pool = opts.worker ? createExtractPool() : null;
  const sleeps: number[] = [];
  let deps!: KnowledgeDeps;
  // Each handler races the crash: once crashed, pg-boss never hears back from it until teardown.
  const workers: QueueWorker[] = knowledgeWorkers(async () => deps).map((w) => ({
    ...w,
    handler: async (job) => {
      const run = w.handler(job);
      run.catch(() => {});
      await Promise.race([run, crashed.promise]);
      if (dead) {
        await buried.promise;
        throw new Error("this instance crashed");
      }
      return run;
    },
  }));
  const queue = await startQueue(db, {
    pollingIntervalSeconds: 0.5,
    policies: { "knowledge.sync": TEST_KNOWLEDGE_POLICY, "knowledge.page": TEST_KNOWLEDGE_POLICY },
    workers,
  });
  deps = {
    db,
    queue,
    fetcher,
    extract: pool ? pool.extract : (input) => extractDocument(input),
    chunk: (sections) => chunkSections(sections),
    searchText,
    allowHosts,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    intervalMs: 500,
    embeddings: false,
  };
  return {
    queue,
    deps,
    sleeps,
    held: () => held,
    release() {
      gate?.resolve();
      gate = null;
    },
    crash() {
      dead = true;
      crashed.resolve();
    },
    async stop() {
      if (dead) {
        gate?.resolve();
        buried.resolve();
      }
      await queue.stop();
      await fetcher.close();
      await pool?.close();
    },
  };
}

/** A website source from a sitemap, no path patterns, not yet synced: what most knowledge tests start with. */
export async function addSitemapSource(
  db: DbHandle,
  tenantId: string,
  sitemapUrl: string,
  opts: { pageCap: number; schedule: "off" | "daily" | "weekly" },
): Promise<string> {
  return db.forTenant(
    tenantId,
    async (tx) =>
      (
        await saveWebsiteSource(tx, tenantId, {
          startUrl: null,
          sitemapUrl,
          includePatterns: [],
          excludePatterns: [],
          pageCap: opts.pageCap,
          schedule: opts.schedule,
          nextSyncAt: null,
        })
      ).id,
  );
}

/** Starts a manual sync and waits until the source is idle again (the sync, its pages and its retries done). */
export async function syncToIdle(
  handle: DbHandle,
  queue: JobQueue,
  tenantId: string,
  sourceId: string,
  timeout = 60_000,
): Promise<void> {
  await startSync(handle, queue, { tenantId, sourceId, actor: null, reason: "manual" });
  await expect
    .poll(
      async () =>
        (
          await rowsOf<{ sync_state: string }>(
            handle.platform,
            sql`select sync_state from knowledge_sources where id = ${sourceId}`,
          )
        )[0]?.sync_state,
      { timeout, interval: 250 },
    )
    .toBe("idle");
}
