import "server-only";
import { sql } from "drizzle-orm";
import type { Db, TenantTx } from "../client";
import { rowsOf } from "../client";
import type { TextHit } from "./knowledge-search";

// Embeddings beside the chunks: float32 bytes (exact cosine in the application) and their sign bits as a bit
// string (a Hamming-distance prefilter Postgres and PGlite both compute with bit_count). Only vectors of the
// current model id and dimension are ever compared, so a changed model can never mix two vector spaces.

/** Chunks still without a vector of `model`, oldest first. */
export async function chunksToEmbed(tx: TenantTx, model: string, limit: number) {
  return rowsOf<{ id: string; hash: string; text: string; headingPath: string }>(
    tx,
    sql`select id, hash, text, heading_path as "headingPath" from knowledge_chunks
        where embedding_model is distinct from ${model}
        order by created_at, id limit ${limit}`,
  );
}

/** Stores one chunk's vector, unless the chunk changed (or went) meanwhile. */
export async function storeEmbedding(
  tx: TenantTx,
  c: { id: string; hash: string; bytes: Buffer; bits: string; model: string; dim: number },
): Promise<void> {
  await tx.execute(
    sql`update knowledge_chunks set embedding = ${c.bytes}, embedding_bits = ${c.bits}::varbit,
          embedding_model = ${c.model}, embedding_dim = ${c.dim}
        where id = ${c.id} and hash = ${c.hash}`,
  );
}

/** Platform work: tenants with chunks the current model has not embedded yet (the background re-embed). */
export async function tenantsToEmbed(db: Db, model: string, limit = 50): Promise<string[]> {
  const rows = await rowsOf<{ tenant_id: string }>(
    db,
    sql`select distinct tenant_id from knowledge_chunks where embedding_model is distinct from ${model} limit ${limit}`,
  );
  return rows.map((r) => r.tenant_id);
}

/**
 * The `limit` chunks whose codes are nearest the query's (Hamming distance), with their vectors. The nearest
 * chunks are chosen from knowledge_chunks alone, then their pages are read in one pass: with a plain join the
 * planner (expecting a handful of rows under row-level security) scanned the tenant's pages once per chunk.
 */
export async function nearestByBits(
  tx: TenantTx,
  q: { model: string; dim: number; bits: string },
  limit: number,
): Promise<(Omit<TextHit, "score"> & { vector: Uint8Array })[]> {
  return rowsOf(tx, nearestSql(q, limit));
}

/** The statement of nearestByBits (exported for EXPLAIN in the bench). */
export function nearestSql(q: { model: string; dim: number; bits: string }, limit: number) {
  return sql`with near as materialized (
          select c.id, c.page_id, c.heading_path, c.text, c.lang, c.embedding,
                 bit_count(c.embedding_bits # ${q.bits}::varbit) as distance
          from knowledge_chunks c
          where c.embedding_model = ${q.model} and c.embedding_dim = ${q.dim}
          order by distance, c.id
          limit ${limit}
        ),
        pages as materialized (
          select id, url, title from knowledge_pages
          where status = 'indexed' and id = any((select array_agg(page_id) from near)::uuid[])
        )
        select n.id as "chunkId", n.page_id as "pageId", p.url, p.title, n.heading_path as "headingPath",
               n.text, n.lang, n.embedding as vector
        from near n join pages p on p.id = n.page_id
        order by n.distance, n.id`;
}
