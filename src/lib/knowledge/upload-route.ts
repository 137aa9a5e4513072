import "server-only";
import type { TenantRouteContext } from "@/lib/auth/route";
import { AppError } from "@/lib/errors";
import { readCappedBytes } from "@/lib/security/body";
import { MAX_UPLOAD_BYTES, uploadDocument } from "./uploads";

// The upload route's work once the guard knows the caller (src/app/api/admin/[tenant]/knowledge/upload):
// the file name from its header, the body read under the 20 MB cap, then the upload use case.

function fileNameOf(req: Request): string {
  const raw = req.headers.get("x-file-name") ?? "";
  try {
    return decodeURIComponent(raw).trim();
  } catch {
    throw new AppError("invalid_input", "The file name could not be read.", {
      fieldErrors: { file: ["The file name could not be read."] },
    });
  }
}

export async function receiveUpload(req: Request, ctx: TenantRouteContext): Promise<Response> {
  const bytes = await readCappedBytes(req, MAX_UPLOAD_BYTES, "The file is larger than 20 MB.");
  const { id, fileName } = await uploadDocument(ctx, { fileName: fileNameOf(req), bytes });
  return Response.json({ ok: true, id, message: `${fileName} uploaded; it is being read.` }, { status: 201 });
}
