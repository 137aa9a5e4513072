import "server-only";
import { sql } from "drizzle-orm";
import type { Db, TenantTx } from "../client";
import { rowsOf } from "../client";
import type { TextHit } from "./knowledge-search";

// Embeddings in knowledge_vectors (drizzle/0030), one row per chunk: the float32 bytes (exact cosine in the
// application) and a 256-bit SimHash code (the Hamming sort in SQL, on a narrow row). Only vectors of the current model id and dimension are ever compared, so a changed model can
// never mix two vector spaces. The rows are apart from the chunks so that embedding never rewrites the wide
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

/** Vectors of `model` carried over without a code (drizzle/0030): coded from their bytes, not re-embedded. */
export async function vectorsToCode(tx: TenantTx, model: string, limit: number) {
  return rowsOf<{ chunkId: string; vector: Uint8Array }>(
    tx,
    sql`select chunk_id as "chunkId", vector from knowledge_vectors
        where model = ${model} and code is null limit ${limit}`,
  );
}

export async function storeCode(tx: TenantTx, c: { chunkId: string; code: string }) {
  await tx.execute(sql`update knowledge_vectors set code = ${c.code}::varbit where chunk_id = ${c.chunkId}`);
}

/** Stores one chunk's vector, unless the chunk changed (or went) meanwhile. */
export async function storeEmbedding(
  tx: TenantTx,
  c: { id: string; hash: string; bytes: Buffer; code: string; model: string; dim: number },
): Promise<void> {
  await tx.execute(
    sql`insert into knowledge_vectors (chunk_id, tenant_id, model, dim, vector, code)
        select id, tenant_id, ${c.model}, ${c.dim}, ${c.bytes}, ${c.code}::varbit
        from knowledge_chunks where id = ${c.id} and hash = ${c.hash}
        on conflict (chunk_id) do update set model = excluded.model, dim = excluded.dim,
          vector = excluded.vector, code = excluded.code`,
  );
}

/** Platform work: tenants with chunks the current model has not embedded (or coded) yet. */
export async function tenantsToEmbed(db: Db, model: string, limit = 50): Promise<string[]> {
  const rows = await rowsOf<{ tenant_id: string }>(
    db,
    sql`select distinct c.tenant_id from knowledge_chunks c left join knowledge_vectors v on v.chunk_id = c.id
        where v.model is distinct from ${model} or v.code is null limit ${limit}`,
  );
  return rows.map((r) => r.tenant_id);
}

export type VectorQuery = { model: string; dim: number; code: string };

/**
 * The `limit` chunks whose codes are nearest the query's (Hamming distance), with their vectors for the cosine
 * rerank, nearest first. The codes are sorted in michi_knowledge_vector_hits (drizzle/0030), which reads only
 * the narrow code rows of the entered tenant's current model and dimension, then the chosen few's vectors
 * (stored out of line) and text. Their pages are read in one pass as one map looked up per chunk (joined as
 * rows, the planner, expecting one row on each side, compared every chunk with every page).
 */
export async function nearestByCode(
  tx: TenantTx,
  q: VectorQuery,
  limit: number,
): Promise<(Omit<TextHit, "score"> & { vector: Uint8Array })[]> {
  return rowsOf(tx, nearestSql(q, limit));
}

/** The statement of nearestByCode (exported for EXPLAIN in the bench). */
export function nearestSql(q: VectorQuery, limit: number) {
  return sql`with near as materialized (
          select * from michi_knowledge_vector_hits(${q.model}, ${q.dim}, ${q.code}::varbit, ${limit})
        ),
        pages as materialized (
          select jsonb_object_agg(id::text, jsonb_build_object('url', url, 'title', title)) as m
          from knowledge_pages
          where status = 'indexed' and id = any((select array_agg(page_id) from near)::uuid[])
        )
        select n.chunk_id as "chunkId", n.page_id as "pageId", p.m -> n.page_id::text ->> 'url' as url,
               p.m -> n.page_id::text ->> 'title' as title, n.heading_path as "headingPath",
               n.body as text, n.lang, n.vector
        from near n, pages p
        where p.m ? n.page_id::text
        order by n.distance, n.chunk_id`;
}
