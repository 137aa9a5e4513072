import "server-only";
import type { DbHandle } from "@/lib/db/client";
import type { TextHit } from "@/lib/db/queries/knowledge-search";
import {
  chunksToEmbed,
  nearestByCode,
  storeCode,
  storeEmbedding,
  tenantsToEmbed,
  vectorsToCode,
} from "@/lib/db/queries/knowledge-vectors";
import { isAppError } from "@/lib/errors";
import { log } from "@/lib/log";
import type { JobQueue, QueueJob, QueuePolicy, QueueWorker } from "@/lib/queue";
import { type EmbeddingsClient, embeddingModelId, embedTexts } from "./embeddings";
import { fromBytea, rerankByCosine, simhash, toBytea } from "./vectors";

// Vectors in the background: a job embeds a tenant's chunks that have no vector of the current model yet, a
// batch at a time, and enqueues itself again while any are left. Changing the model (MICHI_EMBEDDINGS) makes
// every chunk "not embedded by the current model": search uses full text alone for those until their new
// vector is stored, and never compares vectors of two models or sizes.

export const EMBED_QUEUE = "knowledge.embed";
export const EMBED_POLICY: QueuePolicy = { retryLimit: 6, retryDelaySeconds: 30, expireInSeconds: 600 };
const PER_JOB = 128;
/**
 * Codes reranked by cosine per query: 200, as many as the sign bits had before, so the rerank sees as many
 * candidates. Measured recall of the exact 10 nearest (brute-force cosine): on the bench's 10,000 sparse fake
 * vectors 0.85 (the component signs of before: 0.23; 64 codes: 0.75); on dense vectors whose neighbours are
 * barely related (cosine 0.3-0.4) 0.93 (before 0.93; 64 codes: 0.75); on topic-clustered vectors 1.0
 * (tests/integration/knowledge-vector-codes.test.ts). Fewer would be cheaper on PGlite, where each vector
 * crosses its socket (64 instead of 200: 26 instead of 36 ms of CPU per search under load), but find less.
 */
const CANDIDATES = 200;

export type EmbedJob = { tenantId: string };

export async function runEmbedJob(
  db: DbHandle,
  queue: JobQueue,
  client: EmbeddingsClient,
  job: QueueJob<EmbedJob>,
): Promise<void> {
  const { tenantId } = job.data;
  const model = embeddingModelId(client.config);
  // Vectors stored before they had a code (drizzle/0030) are coded from their own bytes first: no model call.
  const uncoded = await db.forTenant(tenantId, async (tx) => {
    const rows = await vectorsToCode(tx, model, PER_JOB);
    for (const r of rows) await storeCode(tx, { chunkId: r.chunkId, code: simhash(fromBytea(r.vector)) });
    if (rows.length === PER_JOB) await queue.sendIn(tx, EMBED_QUEUE, { tenantId } satisfies EmbedJob);
    return rows.length;
  });
  if (uncoded === PER_JOB) return;
  const todo = await db.forTenant(tenantId, (tx) => chunksToEmbed(tx, model, PER_JOB));
  if (todo.length === 0) return;
  let result: Awaited<ReturnType<typeof embedTexts>>;
  try {
    result = await embedTexts(
      client,
      todo.map((c) => (c.headingPath ? `${c.headingPath}\n${c.text}` : c.text)),
      { kind: "document" },
    );
  } catch (err) {
    // A refusal that cannot get better (a wrong model name, a bad key) is logged once, not retried all day.
    if (isAppError(err) && err.details?.retryable === false) {
      log().warn({ err: { message: err.message }, tenantId }, "embedding refused; search stays full text");
      return;
    }
    throw err;
  }
  await db.forTenant(tenantId, async (tx) => {
    for (const [i, c] of todo.entries()) {
      const v = result.vectors[i]!;
      await storeEmbedding(tx, {
        id: c.id,
        hash: c.hash,
        bytes: toBytea(v),
        code: simhash(v),
        model,
        dim: v.length,
      });
    }
    if (todo.length === PER_JOB) await queue.sendIn(tx, EMBED_QUEUE, { tenantId } satisfies EmbedJob);
  });
}

export function embedWorker(
  db: DbHandle,
  deps: () => Promise<{ queue: JobQueue; client: EmbeddingsClient | null }>,
): QueueWorker {
  const w: QueueWorker<EmbedJob> = {
    name: EMBED_QUEUE,
    policy: EMBED_POLICY,
    handler: async (job) => {
      const { queue, client } = await deps();
      if (client) await runEmbedJob(db, queue, client, job);
    },
  };
  return w as QueueWorker;
}

/** The sweep: a job for every tenant with chunks the current model has not embedded. */
export async function enqueueMissingEmbeddings(db: DbHandle, queue: JobQueue, client: EmbeddingsClient) {
  for (const tenantId of await tenantsToEmbed(db.platform, embeddingModelId(client.config)))
    await queue.send(EMBED_QUEUE, { tenantId } satisfies EmbedJob);
}

/** Vector hits for a question, best first; [] when the model is unreachable (full text still answers). */
export async function vectorHits(
  db: DbHandle,
  client: EmbeddingsClient,
  tenantId: string,
  query: string,
  signal?: AbortSignal,
): Promise<TextHit[]> {
  let q: Float32Array;
  try {
    q = (await embedTexts(client, [query], { kind: "query", signal })).vectors[0]!;
  } catch (err) {
    log().warn({ err: { message: (err as Error).message } }, "query embedding failed; full text only");
    return [];
  }
  return nearestVectors(db, tenantId, embeddingModelId(client.config), q);
}

/**
 * The tenant's chunks nearest a query vector of `model`, best first: the nearest codes (CANDIDATES) reranked
 * by exact cosine, 40 kept.
 */
export async function nearestVectors(
  db: DbHandle,
  tenantId: string,
  model: string,
  q: Float32Array,
): Promise<TextHit[]> {
  const candidates = await db.forTenant(tenantId, (tx) =>
    nearestByCode(tx, { model, dim: q.length, code: simhash(q) }, CANDIDATES),
  );
  return rerankByCosine(q, candidates, 40).map(({ vector: _v, ...hit }) => hit);
}
