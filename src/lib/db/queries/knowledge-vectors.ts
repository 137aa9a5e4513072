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
 * planner (expecting a handful of rows under row-level security) scanned the tenant's pages once per chunk. The
 * distance is sorted on ids alone and the chosen chunks' text and vector read afterwards (sorting whole rows
 * read every chunk's text and vector: 27 ms of 51 in EXPLAIN ANALYZE at 10,000 chunks), in the order of an
 * array of their ids. The
 * pages come back as one map looked up per chunk: joined as rows, the planner (expecting one row on each side)
 * compared every chunk with every page, 200 × 200.
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
  return sql`with nearest as materialized (
          select c.id, bit_count(c.embedding_bits # ${q.bits}::varbit) as distance
          from knowledge_chunks c
          where c.embedding_model = ${q.model} and c.embedding_dim = ${q.dim}
          order by distance, c.id
          limit ${limit}
        ),
        ids as materialized (select array_agg(id order by distance, id) as a from nearest),
        near as materialized (
          select c.id, c.page_id, c.heading_path, c.text, c.lang, c.embedding, array_position(ids.a, c.id) as place
          from knowledge_chunks c, ids
          where c.id = any(ids.a)
        ),
        pages as materialized (
          select jsonb_object_agg(id::text, jsonb_build_object('url', url, 'title', title)) as m
          from knowledge_pages
          where status = 'indexed' and id = any((select array_agg(page_id) from near)::uuid[])
        )
        select n.id as "chunkId", n.page_id as "pageId", p.m -> n.page_id::text ->> 'url' as url,
               p.m -> n.page_id::text ->> 'title' as title, n.heading_path as "headingPath",
               n.text, n.lang, n.embedding as vector
        from near n, pages p
        where p.m ? n.page_id::text
        order by n.place`;
}
