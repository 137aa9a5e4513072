import "server-only";
import type { TenantTx } from "@/lib/db/client";
import { type PagePatch, type PageRow, replacePageChunks } from "@/lib/db/queries/knowledge-pages";
import type { ExtractedDoc, KnowledgeDeps } from "./deps";
import { EMBED_QUEUE, type EmbedJob } from "./embed";
import { prepareChunks } from "./prepare";

// The one indexing step a website page and an uploaded document share, once either has been extracted and
// judged worth indexing: its chunks prepared (by the extraction worker, or here), the page's chunks replaced by
// them in the caller's transaction (unchanged ones kept), an embed job queued when new chunks need vectors,
// and the page fields that say it is indexed. The caller writes those fields with its own.

export type IndexDeps = Pick<KnowledgeDeps, "queue" | "chunk" | "searchText" | "embeddings">;

export async function indexDocument(
  tx: TenantTx,
  deps: IndexDeps,
  page: Pick<PageRow, "id" | "tenantId" | "sourceId" | "status" | "contentHash">,
  doc: ExtractedDoc,
): Promise<PagePatch> {
  const { lang, chunks } = doc.prepared ?? prepareChunks(doc, deps.chunk, deps.searchText);
  const indexed: PagePatch = { status: "indexed", reason: null, lang };
  // The same text as the version indexed: its chunks stand, and no embedding is asked for again.
  if (page.status === "indexed" && page.contentHash === doc.hash) return indexed;
  const written = await replacePageChunks(
    tx,
    { tenantId: page.tenantId, sourceId: page.sourceId, pageId: page.id },
    chunks,
  );
  if (deps.embeddings && written.inserted > 0)
    await deps.queue.sendIn(tx, EMBED_QUEUE, { tenantId: page.tenantId } satisfies EmbedJob);
  return { ...indexed, contentHash: doc.hash, indexed: true };
}
