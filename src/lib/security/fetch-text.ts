import "server-only";
import { promisify } from "node:util";
import { gunzip } from "node:zlib";
import { type Agent, type Dispatcher, request } from "undici";
import { isToolWorldError, ToolWorldError } from "../errors";
import { createGuardedAgent, type GuardedFetcherOptions } from "./fetch";
import { checkUrlShape } from "./url-policy";

// The guarded door for the knowledge crawler: the same checks as getJson (the URL's shape as text, every
// address again inside the connection, redirects one checked hop at a time), for pages, sitemaps, robots.txt
// and documents instead of JSON. It adds what a crawler needs: conditional requests (ETag, Last-Modified), the
// body as bytes with its type, a per-hop "is this still the business's site" check, and a decompression cap
// so a gzip bomb costs at most maxBytes of memory.

export type PageFetchOptions = {
  signal?: AbortSignal;
  etag?: string | null;
  lastModified?: string | null;
  accept?: string;
  /** Refuses a hop (the first URL included) that leaves the business's site. */
  onSite?: (url: URL) => boolean;
  /**
   * Asked before each hop is requested (the first URL included), after the checks above: false refuses it
   * ("disallowed"). The crawler checks each hop against its host's robots.txt here, since redirects are
   * followed inside this function and a hop into a disallowed path must not be requested at all.
   */
  allowHop?: (url: URL) => Promise<boolean>;
  maxBytes?: number;
};

export type PageFetchResult =
  | {
      kind: "ok";
      status: number;
      /** The URL after redirects: the page's address. */
      url: string;
      contentType: string;
      body: Buffer;
      etag: string | null;
      lastModified: string | null;
      /** The X-Robots-Tag header's values (noindex, nofollow, "agent: noindex"), if any. */
      robotsTag?: string[];
    }
  | { kind: "not_modified"; url: string }
  /** An HTTP answer outside 2xx/304 (404 and 410 count towards a page's removal). */
  | { kind: "http"; status: number; url: string }
  | {
      kind: "refused";
      reason: "off_domain" | "too_large" | "blocked" | "disallowed";
      message: string;
      url: string;
    };

export type PageFetcher = {
  fetchPage(url: string, opts?: PageFetchOptions): Promise<PageFetchResult>;
  close(): Promise<void>;
};

export const DEFAULT_PAGE_MAX_BYTES = 5 * 1024 * 1024;

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

function discard(body: Dispatcher.ResponseData["body"]) {
  body.on("error", () => {});
  body.destroy();
}

class TooLarge extends Error {}

async function readBytes(body: Dispatcher.ResponseData["body"], maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += (chunk as Buffer).byteLength;
    if (total > maxBytes) {
      discard(body);
      throw new TooLarge();
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function isBlocked(err: unknown): boolean {
  for (let e = err, i = 0; e && i < 5; e = (e as { cause?: unknown }).cause, i++) {
    if (isToolWorldError(e) && e.blocked) return true;
  }
  return false;
}

const gunzipAsync = promisify(gunzip);

/**
 * Gzip bodies (a sitemap.xml.gz, or a server that compresses unasked) are inflated up to maxBytes only, on
 * libuv's thread pool: 20 MB inflated in one synchronous call held the event loop for tens of milliseconds.
 */
async function inflate(body: Buffer, encoding: string, maxBytes: number): Promise<Buffer> {
  const gz = body.length >= 2 && body[0] === 0x1f && body[1] === 0x8b;
  if (!gz && !/gzip/i.test(encoding)) return body;
  try {
    return await gunzipAsync(body, { maxOutputLength: maxBytes });
  } catch (err) {
    if ((err as { code?: string }).code === "ERR_BUFFER_TOO_LARGE" || err instanceof RangeError)
      throw new TooLarge();
    throw new ToolWorldError("The compressed answer is damaged");
  }
}

export function createPageFetcher(opts: GuardedFetcherOptions = {}): PageFetcher {
  const allowHosts = opts.allowHosts ?? [];
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const maxRedirects = opts.maxRedirects ?? 5;
  const agent: Agent = createGuardedAgent(opts);

  async function fetchPage(url: string, o: PageFetchOptions = {}): Promise<PageFetchResult> {
    const maxBytes = o.maxBytes ?? opts.maxBytes ?? DEFAULT_PAGE_MAX_BYTES;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = o.signal ? AbortSignal.any([o.signal, timeout]) : timeout;
    let target = url;
    for (let hop = 0; ; hop++) {
      const shape = checkUrlShape(target, allowHosts);
      if (!shape.ok) return { kind: "refused", reason: "blocked", message: shape.message, url: target };
      const current = shape.url;
      if (o.onSite && !o.onSite(current))
        return {
          kind: "refused",
          reason: "off_domain",
          message: "This address is not on the business's site",
          url: current.toString(),
        };
      if (o.allowHop && !(await o.allowHop(current)))
        return {
          kind: "refused",
          reason: "disallowed",
          message: "robots.txt disallows this address",
          url: current.toString(),
        };
      const headers: Record<string, string> = {
        accept: o.accept ?? "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5",
        "user-agent": "michi-chat (knowledge crawler)",
      };
      // Conditional headers belong to the address they were stored for, not to a redirect's target.
      if (hop === 0 && o.etag) headers["if-none-match"] = o.etag;
      if (hop === 0 && o.lastModified) headers["if-modified-since"] = o.lastModified;
      let res: Dispatcher.ResponseData;
      try {
        res = await request(current, { method: "GET", dispatcher: agent, signal, headers });
      } catch (err) {
        if (timeout.aborted) throw new ToolWorldError("The site did not answer in time", { timedOut: true });
        if (o.signal?.aborted) throw new ToolWorldError("The request was cancelled");
        if (isBlocked(err))
          return {
            kind: "refused",
            reason: "blocked",
            message: "This address is not allowed",
            url: current.toString(),
          };
        if (isToolWorldError(err)) throw err;
        throw new ToolWorldError("The site could not be reached");
      }
      const status = res.statusCode;
      const location = one(res.headers.location);
      if (status >= 300 && status < 400 && status !== 304 && location) {
        discard(res.body);
        if (hop >= maxRedirects) throw new ToolWorldError("The site redirected too many times");
        target = new URL(location, current).toString();
        continue;
      }
      if (status === 304) {
        discard(res.body);
        return { kind: "not_modified", url: current.toString() };
      }
      if (status < 200 || status >= 300) {
        discard(res.body);
        return { kind: "http", status, url: current.toString() };
      }
      const tooLarge = {
        kind: "refused",
        reason: "too_large",
        message: `The answer is larger than ${Math.round(maxBytes / 1024 / 1024)} MB`,
        url: current.toString(),
      } as const;
      if (Number(one(res.headers["content-length"]) ?? "0") > maxBytes) {
        discard(res.body);
        return tooLarge;
      }
      let body: Buffer;
      try {
        body = await inflate(
          await readBytes(res.body, maxBytes),
          one(res.headers["content-encoding"]) ?? "",
          maxBytes,
        );
      } catch (err) {
        if (err instanceof TooLarge) return tooLarge;
        if (isToolWorldError(err)) throw err;
        if (timeout.aborted) throw new ToolWorldError("The site did not answer in time", { timedOut: true });
        throw new ToolWorldError("The answer was interrupted");
      }
      return {
        kind: "ok",
        status,
        url: current.toString(),
        contentType: (one(res.headers["content-type"]) ?? "").toLowerCase(),
        body,
        etag: one(res.headers.etag) ?? null,
        lastModified: one(res.headers["last-modified"]) ?? null,
        robotsTag: ([] as string[]).concat(res.headers["x-robots-tag"] ?? []),
      };
    }
  }

  return { fetchPage, close: () => agent.close() };
}
