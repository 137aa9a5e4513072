import "server-only";
import { deletePageChunks, getPage, updatePage } from "@/lib/db/queries/knowledge-pages";
import { indexedLanguages } from "@/lib/db/queries/knowledge-search";
import { getSource, setPackLanguages } from "@/lib/db/queries/knowledge-sources";
import { getUploadFile } from "@/lib/db/queries/knowledge-uploads";
import type { QueueJob } from "@/lib/queue";
import type { KnowledgeDeps, UploadJob } from "./deps";
import { indexDocument } from "./index-document";

// One uploaded document: its bytes read back from the database, its text extracted in the extraction worker
// (never on the event loop that serves chats), chunked like a website page and stored in one transaction with
// the page's state. A refusal (too large, not a supported type, a zip bomb, unreadable) is recorded with its
// reason; a document deleted meanwhile is left alone.

const REASONS: Record<string, string> = {
  too_large: "too_large",
  too_much_text: "too_large",
  too_many_pages: "too_large",
  zip_bomb: "zip_bomb",
  unsupported_type: "unsupported_type",
  timeout: "unreadable",
};

export async function runUploadJob(deps: KnowledgeDeps, job: QueueJob<UploadJob>): Promise<void> {
  try {
    await readUpload(deps, job);
  } catch (err) {
    if (job.retryCount < job.retryLimit) throw err;
    // The last attempt: the document says it failed rather than "processing" for ever.
    const { tenantId, pageId } = job.data;
    await deps.db.forTenant(tenantId, (tx) =>
      updatePage(tx, pageId, {
        status: "failed",
        reason: "unreadable: The document could not be processed.",
      }),
    );
  }
}

async function readUpload(deps: KnowledgeDeps, job: QueueJob<UploadJob>): Promise<void> {
  const { tenantId, sourceId, pageId } = job.data;
  const found = await deps.db.forTenant(tenantId, async (tx) => ({
    source: await getSource(tx, sourceId),
    page: await getPage(tx, pageId),
    bytes: await getUploadFile(tx, sourceId),
  }));
  const { source, page, bytes } = found;
  if (!source || !page || !bytes || page.status === "indexed") return;
  const extracted = await deps.extract({
    bytes: new Uint8Array(bytes),
    contentType: source.contentType ?? "application/octet-stream",
    url: source.fileName ?? "document",
  });
  await deps.db.forTenant(tenantId, async (tx) => {
    // Deleted while it was read: its rows are gone and nothing is written back.
    const current = await getPage(tx, pageId);
    if (!current) return;
    if (!extracted.ok) {
      await deletePageChunks(tx, pageId);
      const reason = REASONS[extracted.reason] ?? "unreadable";
      await updatePage(tx, pageId, {
        status: "failed",
        reason: `${reason}: ${extracted.message}`.slice(0, 300),
      });
      return;
    }
    const { doc } = extracted;
    if (doc.sections.length === 0) {
      await updatePage(tx, pageId, { status: "failed", reason: "empty: No text was found in the document." });
      return;
    }
    await updatePage(tx, pageId, { ...(await indexDocument(tx, deps, current, doc)), fetched: true });
    await setPackLanguages(tx, await indexedLanguages(tx));
  });
}
