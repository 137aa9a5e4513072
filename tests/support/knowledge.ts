import type { DbHandle } from "@/lib/db/client";
import type { KnowledgeDeps } from "@/lib/knowledge/deps";
import { chunkSections, extractDocument, searchText } from "@/lib/knowledge/extract";
import { createExtractPool } from "@/lib/knowledge/extract-pool";
import { knowledgeWorkers } from "@/lib/knowledge/worker";
import { type JobQueue, startQueue } from "@/lib/queue";
import { createPageFetcher } from "@/lib/security/fetch-text";
import type { FixtureSite } from "./fixture-site";

// The knowledge jobs for integration tests: the real pg-boss workers on the test database polling twice a
// second, a page fetcher that trusts the fixture site's CA and allows its localhost port, no politeness wait
// (the slot arithmetic still runs; `sleeps` records what the crawler would have waited).

export const TEST_KNOWLEDGE_POLICY = { retryLimit: 1, retryDelaySeconds: 1, expireInSeconds: 30 };

export type KnowledgeInstance = {
  queue: JobQueue;
  deps: KnowledgeDeps;
  sleeps: number[];
  stop(): Promise<void>;
};

export async function startKnowledgeInstance(
  db: DbHandle,
  site: Pick<FixtureSite, "host" | "caPem">,
  opts: { worker?: boolean; alsoSites?: Pick<FixtureSite, "host" | "caPem">[] } = {},
): Promise<KnowledgeInstance> {
  // A second fixture site stands for the business's other host (example.com redirecting to www.example.com).
  const sites = [site, ...(opts.alsoSites ?? [])];
  const allowHosts = sites.map((s) => s.host);
  const extraCaPem = sites.map((s) => s.caPem).join("\n");
  const fetcher = createPageFetcher({ allowHosts, extraCaPem, timeoutMs: 10_000 });
  const pool = opts.worker ? createExtractPool() : null;
  const sleeps: number[] = [];
  let deps!: KnowledgeDeps;
  const queue = await startQueue(db, {
    pollingIntervalSeconds: 0.5,
    policies: { "knowledge.sync": TEST_KNOWLEDGE_POLICY, "knowledge.page": TEST_KNOWLEDGE_POLICY },
    workers: knowledgeWorkers(async () => deps),
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
    async stop() {
      await queue.stop();
      await fetcher.close();
      await pool?.close();
    },
  };
}
