import "server-only";
import type { Dispatcher } from "undici";
import { isToolWorldError, ToolWorldError } from "../errors";

// Reading and dropping response bodies for the guarded fetcher (fetch.ts) and its POST (fetch-post.ts).

export async function readCapped(body: Dispatcher.ResponseData["body"], maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += (chunk as Buffer).byteLength;
    if (total > maxBytes) {
      body.destroy();
      throw new ToolWorldError(`The response is larger than ${Math.round(maxBytes / 1024)} KB`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Drops a body we will not read, so its connection is closed rather than left half-read. */
export function discard(body: Dispatcher.ResponseData["body"]) {
  body.on("error", () => {});
  body.destroy();
}

export const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

export function blockedCause(err: unknown): boolean {
  for (let e = err, i = 0; e && i < 5; e = (e as { cause?: unknown }).cause, i++) {
    if (isToolWorldError(e) && e.blocked) return true;
  }
  return false;
}

export function worldCause(err: unknown): ToolWorldError | null {
  for (let e = err, i = 0; e && i < 5; e = (e as { cause?: unknown }).cause, i++) {
    if (isToolWorldError(e)) return e;
  }
  return null;
}

/** What a visitor-facing pack says when the request itself failed: its own timeout, a cancel, the policy. */
export function requestFailure(err: unknown, timeout: AbortSignal, outer?: AbortSignal): ToolWorldError {
  if (timeout.aborted) return new ToolWorldError("The site did not answer in time");
  if (outer?.aborted) return new ToolWorldError("The request was cancelled");
  if (blockedCause(err)) return new ToolWorldError("This address is not allowed");
  return worldCause(err) ?? new ToolWorldError("The site could not be reached");
}
