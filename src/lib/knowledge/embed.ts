import "server-only";
import type { DbHandle } from "@/lib/db/client";
import type { TextHit } from "@/lib/db/queries/knowledge-search";
import {
  chunksToEmbed,
  sketchesAfter,
  storeEmbedding,
  storeSketch,
  tenantsToEmbed,
  type VectorSet,
  vectorsById,
  vectorsToSketch,
} from "@/lib/db/queries/knowledge-vectors";
import { isAppError } from "@/lib/errors";
import { log } from "@/lib/log";
import type { JobQueue, QueueJob, QueuePolicy, QueueWorker } from "@/lib/queue";
import { type EmbeddingsClient, embeddingModelId, embedTexts } from "./embeddings";
import { type SketchSet, sketchSet, trimSketchSets } from "./sketch-cache";
import { fromBytea, sketchBytes, sketchWords, toBytea } from "./vectors";

// Vectors in the background: a job embeds a tenant's chunks that have no vector of the current model yet, a
// batch at a time, and enqueues itself again while any are left. Changing the model (MICHI_EMBEDDINGS) makes
// every chunk "not embedded by the current model": search uses full text alone for those until their new
// vector is stored, and never compares vectors of two models or sizes.

export const EMBED_QUEUE = "knowledge.embed";
export const EMBED_POLICY: QueuePolicy = { retryLimit: 6, retryDelaySeconds: 30, expireInSeconds: 600 };
const PER_JOB = 128;
/**
 * Sketches reranked by cosine (on the cached int8 vectors) and read by id per query: 64. Measured recall of
 * the exact 10 nearest (brute-force cosine) on the bench's 10,000 sparse fake vectors: 0.93 (the 200 nearest 256-bit codes of before: 0.77; 32
 * sketches 0.86, 100 sketches 0.95); on topic-clustered vectors 1.0 (tests/integration/knowledge-vector-codes.test.ts).
 * Each candidate is one read by id; 64 instead of 200 took the read from about 8 to 4 ms on PGlite, and
 * leaving the vectors out of it (they are in the cache) halved it again.
 */
const CANDIDATES = 64;
/** Sketching is about 0.3 ms of CPU a vector: the job lets the event loop run between groups of this many. */
const SKETCH_GROUP = 16;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export type EmbedJob = { tenantId: string };

export async function runEmbedJob(
  db: DbHandle,
  queue: JobQueue,
  client: EmbeddingsClient,
  job: QueueJob<EmbedJob>,
): Promise<void> {
  const { tenantId } = job.data;
  const model = embeddingModelId(client.config);
  // Vectors stored before they had a sketch (drizzle/0039) are sketched from their own bytes first: no model
  // call. Sketched outside the transaction, so the event loop runs between groups.
  const unsketched = await db.forTenant(tenantId, (tx) => vectorsToSketch(tx, model, PER_JOB));
  const uncoded = unsketched.length;
  if (uncoded > 0) {
    const sketches: Buffer[] = [];
    for (const [i, r] of unsketched.entries()) {
      if (i % SKETCH_GROUP === SKETCH_GROUP - 1) await yieldToLoop();
      sketches.push(sketchBytes(fromBytea(r.vector)));
    }
    await db.forTenant(tenantId, async (tx) => {
      for (const [i, r] of unsketched.entries())
        await storeSketch(tx, { chunkId: r.chunkId, sketch: sketches[i]! });
      if (uncoded === PER_JOB) await queue.sendIn(tx, EMBED_QUEUE, { tenantId } satisfies EmbedJob);
    });
  }
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
  const sketches: Buffer[] = [];
  for (const [i, v] of result.vectors.entries()) {
    if (i % SKETCH_GROUP === SKETCH_GROUP - 1) await yieldToLoop();
    sketches.push(sketchBytes(v));
  }
  await db.forTenant(tenantId, async (tx) => {
    for (const [i, c] of todo.entries()) {
      const v = result.vectors[i]!;
      await storeEmbedding(tx, {
        id: c.id,
        hash: c.hash,
        bytes: toBytea(v),
        sketch: sketches[i]!,
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
 * The tenant's chunks nearest a query vector of `model`, best first: the nearest sketches in this instance's
 * cache (./sketch-cache.ts, CANDIDATES of them), reranked by cosine on the cached vectors and read by id in
 * that order (text, page, and whether the page is indexed just now), 40 kept. The read also returns the
 * business's newest seq: when the cache is behind it catches up (rows after its seq only) and chooses again,
 * so a vector stored on any instance is searched by the next query here.
 */
export async function nearestVectors(
  db: DbHandle,
  tenantId: string,
  model: string,
  q: Float32Array,
): Promise<TextHit[]> {
  const vset: VectorSet = { model, dim: q.length };
  const cache = sketchSet(db, tenantId, model, q.length);
  const query = sketchWords(q);
  if (cache.seq < 0) await catchUp(db, tenantId, vset, cache);
  let hits: TextHit[] = [];
  for (let attempt = 0; attempt < 2; attempt++) {
    const ranked = cache.rerank(q, cache.nearest(query, CANDIDATES));
    const ids = ranked.map((r) => r.id);
    const { rows, present, head } = await db.forTenant(tenantId, (tx) => vectorsById(tx, vset, ids));
    // Only a vector that is gone is forgotten; one on a page skipped for now stays for when it is back.
    for (const id of ids) if (!present.has(id)) cache.forget(id);
    const scores = new Map(ranked.map((r) => [r.id, r.score]));
    hits = rows.slice(0, 40).map((r) => ({ ...r, score: scores.get(r.chunkId) ?? 0 }));
    if (head === null || head <= cache.seq) break;
    await catchUp(db, tenantId, vset, cache);
  }
  return hits;
}

/** Loads what the set lacks (everything, the first time); one load at a time, the others wait for it. */
async function catchUp(db: DbHandle, tenantId: string, vset: VectorSet, cache: SketchSet) {
  cache.catchingUp ??= (async () => {
    try {
      const rows = await db.forTenant(tenantId, (tx) => sketchesAfter(tx, vset, Math.max(cache.seq, 0)));
      for (const r of rows) cache.put(r.chunkId, r.sketch, r.vector);
      const last = rows.at(-1);
      cache.seq = last ? Number(last.seq) : Math.max(cache.seq, 0);
      trimSketchSets(db, cache);
    } finally {
      cache.catchingUp = null;
    }
  })();
  await cache.catchingUp;
}
