import "server-only";
import { AppError } from "../errors";

// Request bodies are read through this cap, never with `req.text()`: a chunked body carries no
// Content-Length, so only counting while reading stops a client from making the server buffer megabytes.

function tooLarge(maxBytes: number): AppError {
  return new AppError("payload_too_large", "The request is too large.", { maxBytes });
}

/**
 * The body as UTF-8 text, refused with 413 as soon as it passes `maxBytes` (or at once when the declared
 * Content-Length already does). The rest of an oversized upload is cancelled, not read.
 */
export async function readCappedText(req: Request, maxBytes: number): Promise<string> {
  return new TextDecoder().decode(await readCappedBytes(req, maxBytes));
}

/** The body's bytes as sent, under the same cap (a signature is computed over exactly these). */
export async function readCappedBytes(req: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(req.headers.get("content-length") ?? "");
  if (Number.isFinite(declared) && declared > maxBytes) {
    await req.body?.cancel().catch(() => {});
    throw tooLarge(maxBytes);
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
        throw tooLarge(maxBytes);
      }
      chunks.push(value);
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError("bad_request", "The request could not be read.");
  } finally {
    reader.releaseLock();
  }
  return Buffer.concat(chunks);
}
