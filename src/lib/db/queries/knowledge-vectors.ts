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

/** The `limit` chunks whose codes are nearest the query's (Hamming distance), with their vectors. */
export async function nearestByBits(
  tx: TenantTx,
  q: { model: string; dim: number; bits: string },
  limit: number,
): Promise<(Omit<TextHit, "score"> & { vector: Uint8Array })[]> {
  return rowsOf(
    tx,
    sql`select c.id as "chunkId", c.page_id as "pageId", p.url, p.title, c.heading_path as "headingPath",
               c.text, c.lang, c.embedding as vector
        from knowledge_chunks c join knowledge_pages p on p.id = c.page_id
        where c.embedding_model = ${q.model} and c.embedding_dim = ${q.dim} and p.status = 'indexed'
        order by bit_count(c.embedding_bits # ${q.bits}::varbit), c.id
        limit ${limit}`,
  );
}
