import "server-only";
import { assertRole, auditedTx, type TenantContext } from "@/lib/auth/access";
import {
  deleteUpload,
  getUpload,
  insertUpload,
  lockUploadQuota,
  uploadedBytes,
} from "@/lib/db/queries/knowledge-uploads";
import { AppError } from "@/lib/errors";
import { type JobQueue, processQueue } from "@/lib/queue";
import { isUuid } from "@/shared/parse";
import { UPLOAD_QUEUE, type UploadJob } from "./deps";

// Documents the business uploads (PDF, DOCX, Markdown, plain text). The upload stores the file and queues its
// extraction job in one transaction; the job (./upload-job.ts) reads the text in the extraction worker and
// indexes it like a website page. Delete removes the file, its page and its chunks at once.

export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;

const TYPES: Record<string, string> = {
  pdf: "application/pdf",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  md: "text/markdown",
  markdown: "text/markdown",
  txt: "text/plain",
};

export type UploadInput = { fileName: string; bytes: Uint8Array };

const mb = (n: number) => `${Math.round((n / 1024 / 1024) * 10) / 10} MB`;

function refuse(message: string): never {
  throw new AppError("invalid_input", message, { fieldErrors: { file: [message] } });
}

// C0 and C1 control characters (NUL among them) and the Unicode marks that reverse or isolate the direction
// of text, with which "report\u202Efdp.txt" shows as "reporttxt.pdf".
const CONTROL = /[\p{Cc}\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;

/**
 * The name the document is kept and shown under: the last part of what the browser or a script sent, so
 * "../../etc/passwd.txt" or "C:\\Users\\ana\\menu.pdf" become "passwd.txt" and "menu.pdf". A name with
 * control characters is refused rather than cleaned: there is no good guess at what it should have said.
 */
function uploadFileName(raw: string): string {
  if (CONTROL.test(raw))
    refuse("The file name contains control characters. Rename the file and upload it again.");
  return (raw.split(/[\\/]/).pop() ?? "").trim().slice(0, 200);
}

/** The file's type by its extension (the extractor checks the bytes again: a PDF must start like one). */
function typeOf(fileName: string): string {
  const ext = /\.([a-z0-9]+)$/i.exec(fileName)?.[1]?.toLowerCase() ?? "";
  const type = TYPES[ext];
  // Word's old binary format is the likeliest wrong file an owner has: say how to get the one we read.
  if (ext === "doc")
    refuse(
      "Word 97–2003 files (.doc) cannot be read. Save it as DOCX (in Word: Save As, Word Document) and upload that.",
    );
  if (!type) refuse("Upload a PDF, DOCX, Markdown (.md) or plain text (.txt) file.");
  return type;
}

export async function uploadDocument(
  ctx: TenantContext,
  input: UploadInput,
  queue?: JobQueue,
): Promise<{ id: string; fileName: string }> {
  assertRole(ctx, "admin");
  const fileName = uploadFileName(input.fileName);
  if (!fileName || input.bytes.byteLength === 0) refuse("Choose a file to upload.");
  const contentType = typeOf(fileName);
  if (input.bytes.byteLength > MAX_UPLOAD_BYTES)
    throw new AppError("payload_too_large", `The file is larger than ${mb(MAX_UPLOAD_BYTES)}.`, {
      fieldErrors: { file: [`The file is larger than ${mb(MAX_UPLOAD_BYTES)}.`] },
    });
  const q = queue ?? (await processQueue());
  if (!q) throw new AppError("db_unavailable", "The job queue is not running; try again in a moment.");
  return auditedTx(ctx, async (tx, record) => {
    const quota = await lockUploadQuota(tx, ctx.tenant.id);
    const used = await uploadedBytes(tx);
    if (used + input.bytes.byteLength > quota) {
      const message = `Your documents would use more than your ${mb(quota)} (${mb(used)} used). Delete a document first.`;
      throw new AppError("payload_too_large", message, { fieldErrors: { file: [message] } });
    }
    const { sourceId, pageId } = await insertUpload(tx, {
      tenantId: ctx.tenant.id,
      fileName,
      contentType,
      bytes: input.bytes,
    });
    await q.sendIn(tx, UPLOAD_QUEUE, { tenantId: ctx.tenant.id, sourceId, pageId } satisfies UploadJob);
    await record("knowledge.document_uploaded", {
      target: sourceId,
      details: { fileName, bytes: input.bytes.byteLength },
    });
    return { id: sourceId, fileName };
  });
}

/** Delete: the document's passages leave the search in the same transaction. */
export async function deleteDocument(ctx: TenantContext, id: string): Promise<void> {
  assertRole(ctx, "admin");
  if (!isUuid(id)) throw new AppError("not_found", "This document is not in your knowledge.");
  await auditedTx(ctx, async (tx, record) => {
    const row = await getUpload(tx, id);
    if (!row || !(await deleteUpload(tx, id)))
      throw new AppError("not_found", "This document is not in your knowledge.");
    await record("knowledge.document_deleted", { target: id, details: { fileName: row.fileName } });
  });
}
