import "server-only";
import { AppError } from "../errors";

// Request bodies are read through this cap, never with `req.text()`: a chunked body carries no
// Content-Length, so only counting while reading stops a client from making the server buffer megabytes.

function tooLarge(maxBytes: number): AppError {
  return new AppError("payload_too_large", "The request is too large.", { maxBytes });
}

/**
 * The body's bytes, refused with 413 as soon as they pass `maxBytes` (or at once when the declared
 * Content-Length already does). The rest of an oversized upload is cancelled, not read. `message` says what
 * was too large in the caller's words.
 */
export async function readCappedBytes(req: Request, maxBytes: number, message?: string): Promise<Uint8Array> {
  const refusal = () =>
    message ? new AppError("payload_too_large", message, { maxBytes }) : tooLarge(maxBytes);
  const declared = Number(req.headers.get("content-length") ?? "");
  if (Number.isFinite(declared) && declared > maxBytes) {
    await req.body?.cancel().catch(() => {});
    throw refusal();
  }
  if (!req.body) return new Uint8Array();
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => {});
        throw refusal();
      }
      chunks.push(value);
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError("bad_request", "The request could not be read.");
  } finally {
    reader.releaseLock();
  }
  return new Uint8Array(Buffer.concat(chunks));
}

/** The body as UTF-8 text, under the same cap as readCappedBytes. */
export async function readCappedText(req: Request, maxBytes: number): Promise<string> {
  return new TextDecoder().decode(await readCappedBytes(req, maxBytes));
}
