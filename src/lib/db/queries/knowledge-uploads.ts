import "server-only";
import { and, eq, sql } from "drizzle-orm";
import type { TenantTx } from "../client";
import { rowsOf } from "../client";
import { knowledgeFiles, knowledgePages, knowledgeSources, tenants } from "../schema";

// Uploaded documents: a source of kind 'document', its one page (the state shown on the Knowledge page) and
// its bytes. Each statement runs under the caller's tenant transaction.

export type UploadRow = {
  id: string;
  fileName: string;
  contentType: string;
  byteSize: number;
  createdAt: Date;
  pageId: string | null;
  status: string | null;
  reason: string | null;
  chunks: number;
};

/** The page URL of an upload: not a web address, so no link is ever made of it. */
export const uploadPageUrl = (sourceId: string) => `upload:${sourceId}`;

export async function insertUpload(
  tx: TenantTx,
  p: { tenantId: string; fileName: string; contentType: string; bytes: Uint8Array },
): Promise<{ sourceId: string; pageId: string }> {
  const [source] = await tx
    .insert(knowledgeSources)
    .values({
      tenantId: p.tenantId,
      kind: "document",
      title: p.fileName,
      fileName: p.fileName,
      contentType: p.contentType,
      byteSize: p.bytes.byteLength,
    })
    .returning({ id: knowledgeSources.id });
  const sourceId = source!.id;
  await tx.insert(knowledgeFiles).values({ sourceId, tenantId: p.tenantId, bytes: Buffer.from(p.bytes) });
  const [page] = await tx
    .insert(knowledgePages)
    .values({
      tenantId: p.tenantId,
      sourceId,
      url: uploadPageUrl(sourceId),
      title: p.fileName,
      byteSize: p.bytes.byteLength,
    })
    .returning({ id: knowledgePages.id });
  return { sourceId, pageId: page!.id };
}

export async function getUploadFile(tx: TenantTx, sourceId: string): Promise<Buffer | null> {
  const [row] = await tx
    .select({ bytes: knowledgeFiles.bytes })
    .from(knowledgeFiles)
    .where(eq(knowledgeFiles.sourceId, sourceId));
  return row?.bytes ?? null;
}

/** Bytes the business has uploaded so far (the quota counts what is stored). */
export async function uploadedBytes(tx: TenantTx): Promise<number> {
  const [row] = await rowsOf<{ n: number }>(
    tx,
    sql`select coalesce(sum(byte_size), 0)::bigint::float8 as n from knowledge_sources where kind = 'document'`,
  );
  return Number(row?.n ?? 0);
}

export async function uploadQuota(tx: TenantTx, tenantId: string): Promise<number> {
  const [row] = await tx
    .select({ q: tenants.knowledgeUploadQuota })
    .from(tenants)
    .where(eq(tenants.id, tenantId));
  return row?.q ?? 104_857_600;
}

/** The quota, with the business's row locked: two uploads at once are counted one after the other. */
export async function lockUploadQuota(tx: TenantTx, tenantId: string): Promise<number> {
  const [row] = await tx
    .select({ q: tenants.knowledgeUploadQuota })
    .from(tenants)
    .where(eq(tenants.id, tenantId))
    .for("update");
  return row?.q ?? 104_857_600;
}

export async function listUploads(tx: TenantTx): Promise<UploadRow[]> {
  return rowsOf<UploadRow>(
    tx,
    sql`select s.id, s.file_name as "fileName", s.content_type as "contentType", s.byte_size as "byteSize",
          s.created_at as "createdAt", p.id as "pageId", p.status, p.reason,
          (select count(*)::int from knowledge_chunks c where c.page_id = p.id) as chunks
        from knowledge_sources s left join knowledge_pages p on p.source_id = s.id
        where s.kind = 'document' order by s.created_at desc limit 200`,
  );
}

export async function getUpload(tx: TenantTx, sourceId: string) {
  const [row] = await tx
    .select()
    .from(knowledgeSources)
    .where(and(eq(knowledgeSources.id, sourceId), eq(knowledgeSources.kind, "document")));
  return row ?? null;
}

/** The source goes, and with it (cascade) its page, its chunks and its bytes. */
export async function deleteUpload(tx: TenantTx, sourceId: string): Promise<boolean> {
  const gone = await tx
    .delete(knowledgeSources)
    .where(and(eq(knowledgeSources.id, sourceId), eq(knowledgeSources.kind, "document")))
    .returning({ id: knowledgeSources.id });
  return gone.length > 0;
}
