import "server-only";
import { sql } from "drizzle-orm";
import type { Db, TenantTx } from "../client";
import { rowsOf } from "../client";
import type { TextHit } from "./knowledge-search";

// Embeddings in knowledge_vectors (drizzle/0030, 0039), one row per chunk: the float32 bytes and a 1024-bit
// sketch, which each instance keeps in memory (the sketch for the Hamming scan, the vector in int8 for the
// cosine rerank: src/lib/knowledge/sketch-cache.ts), and a seq that tells the caches what is new. Only vectors of the current model id and dimension are ever
// compared, so a changed model can never mix two vector spaces. The rows are apart from the chunks so that embedding never rewrites the wide
// chunk rows (on PGlite, which never vacuums, each rewrite left a dead copy for full-text scans to visit).

/** Chunks still without a vector of `model`, oldest first. */
export async function chunksToEmbed(tx: TenantTx, model: string, limit: number) {
  return rowsOf<{ id: string; hash: string; text: string; headingPath: string }>(
    tx,
    sql`select c.id, c.hash, c.text, c.heading_path as "headingPath" from knowledge_chunks c
        left join knowledge_vectors v on v.chunk_id = c.id
        where v.model is distinct from ${model}
        order by c.created_at, c.id limit ${limit}`,
  );
}

/** Vectors of `model` stored without a sketch (before drizzle/0039): sketched from their bytes, no model call. */
export async function vectorsToSketch(tx: TenantTx, model: string, limit: number) {
  return rowsOf<{ chunkId: string; vector: Uint8Array }>(
    tx,
    sql`select chunk_id as "chunkId", vector from knowledge_vectors
        where model = ${model} and sketch is null limit ${limit}`,
  );
}

export async function storeSketch(tx: TenantTx, c: { chunkId: string; sketch: Buffer }) {
  await tx.execute(sql`update knowledge_vectors set sketch = ${c.sketch} where chunk_id = ${c.chunkId}`);
}

/** Stores one chunk's vector, unless the chunk changed (or went) meanwhile. */
export async function storeEmbedding(
  tx: TenantTx,
  c: { id: string; hash: string; bytes: Buffer; sketch: Buffer; model: string; dim: number },
): Promise<void> {
  await tx.execute(
    sql`insert into knowledge_vectors (chunk_id, tenant_id, model, dim, vector, sketch)
        select id, tenant_id, ${c.model}, ${c.dim}, ${c.bytes}, ${c.sketch}
        from knowledge_chunks where id = ${c.id} and hash = ${c.hash}
        on conflict (chunk_id) do update set model = excluded.model, dim = excluded.dim,
          vector = excluded.vector, sketch = excluded.sketch`,
  );
}

/** Platform work: tenants with chunks the current model has not embedded (or coded) yet. */
export async function tenantsToEmbed(db: Db, model: string, limit = 50): Promise<string[]> {
  const rows = await rowsOf<{ tenant_id: string }>(
    db,
    sql`select distinct c.tenant_id from knowledge_chunks c left join knowledge_vectors v on v.chunk_id = c.id
        where v.model is distinct from ${model} or v.sketch is null limit ${limit}`,
  );
  return rows.map((r) => r.tenant_id);
}

export type VectorSet = { model: string; dim: number };

/**
 * The sketches and vectors of `set` stored after seq `after`, oldest first (the cache's first load and its
 * catching up).
 */
export async function sketchesAfter(tx: TenantTx, set: VectorSet, after: number) {
  return rowsOf<{ chunkId: string; seq: string; sketch: Uint8Array; vector: Uint8Array }>(
    tx,
    sql`select chunk_id as "chunkId", seq::text as seq, sketch, vector from knowledge_vectors
        where model = ${set.model} and dim = ${set.dim} and seq > ${after} and sketch is not null
        order by seq`,
  );
}

export type VectorCandidate = Omit<TextHit, "score">;

/**
 * The chosen chunks (their text and page; the vectors are in the instance's cache), in the order given
 * (`rows`: those on an indexed page), the ids that still have a vector of `set` whatever their page's state (`present`), and the
 * business's newest seq of `set` (null when it has none), in one statement: michi_knowledge_vectors_by_id
 * (drizzle/0039). A chosen id that is gone (its chunk deleted or re-embedded by another model) is in neither.
 */
export async function vectorsById(
  tx: TenantTx,
  set: VectorSet,
  ids: string[],
): Promise<{ rows: VectorCandidate[]; present: Set<string>; head: number | null }> {
  const rows = await rowsOf<VectorCandidate & { indexed: boolean; head: string | null }>(
    tx,
    sql`select chunk_id as "chunkId", page_id as "pageId", url, title, heading_path as "headingPath",
               body as text, lang, indexed, head::text as head
        from michi_knowledge_vectors_by_id(${set.model}, ${set.dim}, ${`{${ids.join(",")}}`}::uuid[])`,
  );
  const head = rows[0]?.head;
  const found = rows.filter((r) => r.chunkId !== null);
  return {
    rows: found.filter((r) => r.indexed).map(({ head: _h, indexed: _i, ...r }) => r),
    present: new Set(found.map((r) => r.chunkId)),
    head: head === null || head === undefined ? null : Number(head),
  };
}
