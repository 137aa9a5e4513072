import "server-only";
import { AsyncLocalStorage } from "node:async_hooks";
import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import { createSecureContext, rootCertificates } from "node:tls";
import { Agent, buildConnector, type Dispatcher, request } from "undici";
import { env } from "../env";
import { isToolWorldError, ToolWorldError } from "../errors";
import { processSlot } from "../process-slot";
import { discard, one, readCapped, requestFailure } from "./fetch-body";
import { type PostJsonOptions, postJsonWith } from "./fetch-post";
import {
  checkUrlShape,
  defaultLookup,
  isAllowlisted,
  isPublicUnicast,
  type LookupAddress,
  type LookupFn,
} from "./url-policy";

// The only network door for packs. The URL is checked as text first, then again inside the connection: the
// connector resolves the name itself, refuses the whole answer if any address is not public, and dials the
// address it checked, so a DNS answer that changes after the save (rebinding) never reaches an internal host.
// Requests go through undici's request API rather than its fetch: no WHATWG Request, Response and stream
// objects per call, which was a measurable part of a chat turn's CPU (issue 17). Redirects are followed here,
// one checked hop at a time, and bodies are not decompressed (no Accept-Encoding is sent).

// The world error lives in errors.ts (recognised by its brand); packs import it from the registry, via here.
export { isToolWorldError, ToolWorldError };

/** Raised inside the connector when an address breaks the policy: a world error marked `blocked`. */
export class BlockedAddressError extends ToolWorldError {
  constructor(readonly host: string) {
    super("This address is not allowed", { blocked: true });
    this.name = "BlockedAddressError";
  }
}

export type GuardedFetcherOptions = {
  allowHosts?: readonly string[];
  extraCaPem?: string;
  lookup?: LookupFn;
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  /** Test seam: the dialer behind the policy. Tests pass one that records attempts to prove none happen. */
  rawConnect?: buildConnector.connector;
};

export type GetJsonOptions = {
  signal?: AbortSignal;
  query?: Record<string, string | number | undefined>;
  /** A credential from a secret config field, sent as `Authorization: Bearer`, never past the first origin. */
  bearer?: string;
  /** Fixed headers a pack's API asks for (Cal.com's cal-api-version); like the bearer, first origin only. */
  headers?: Record<string, string>;
};

export const DEFAULT_MAX_BYTES = 512 * 1024;
export const DEFAULT_MAX_REDIRECTS = 3;

function stripBrackets(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

/** An undici connector that applies the address policy to every connection it opens. */
export function createGuardedConnector(opts: GuardedFetcherOptions): buildConnector.connector {
  const allowHosts = opts.allowHosts ?? [];
  const lookup = opts.lookup ?? defaultLookup;
  const base =
    opts.rawConnect ??
    buildConnector({
      // One context for every connection: passing `ca` instead re-parses ~150 certificates per connection
      // (about 30 ms of blocked event loop each; npm run bench).
      ...(opts.extraCaPem
        ? { secureContext: createSecureContext({ ca: [...rootCertificates, opts.extraCaPem] }) }
        : {}),
      timeout: Math.min(opts.timeoutMs ?? 10_000, 10_000),
    });

  async function targets(options: buildConnector.Options): Promise<LookupAddress[]> {
    const host = stripBrackets(options.hostname).toLowerCase();
    if (options.protocol !== "https:") throw new BlockedAddressError(host);
    const port = String(options.port ?? "");
    const allowed = isAllowlisted(host, port, allowHosts);
    if (!allowed && port !== "" && port !== "443") throw new BlockedAddressError(host);
    if (isIP(host) !== 0) {
      if (!allowed && !isPublicUnicast(host)) throw new BlockedAddressError(host);
      return [{ address: host, family: isIP(host) }];
    }
    let answer: LookupAddress[];
    try {
      answer = await lookup(host);
    } catch {
      throw new ToolWorldError("The site's host name could not be found");
    }
    if (answer.length === 0) throw new ToolWorldError("The site's host name could not be found");
    if (!allowed && answer.some((a) => !isPublicUnicast(a.address))) throw new BlockedAddressError(host);
    return answer;
  }

  return (options, callback) => {
    const name = stripBrackets(options.hostname);
    targets(options).then(
      (addresses) => {
        // Dial the checked addresses one after another; SNI and the certificate check keep the name.
        const dial = (i: number) => {
          const address = addresses[i]!;
          base(
            {
              ...options,
              hostname: address.address,
              servername: options.servername || (isIP(name) ? undefined : name),
            },
            (...args) => {
              if (args[0] && i + 1 < addresses.length) return dial(i + 1);
              callback(...args);
            },
          );
        };
        dial(0);
      },
      (err: Error) => callback(err, null),
    );
  };
}

export function createGuardedAgent(opts: GuardedFetcherOptions): Agent {
  return new Agent({ connect: createGuardedConnector(opts), keepAliveTimeout: 4000 });
}

export type GuardedFetcher = {
  // biome-ignore lint/suspicious/noExplicitAny: upstream JSON is untyped until a pack projects it
  getJson(url: string, opts?: GetJsonOptions): Promise<any>;
  /** One signed POST of a confirmed call (post_json); never redirected, never retried here. */
  postJson(url: string, body: unknown, opts: PostJsonOptions): Promise<unknown>;
  close(): Promise<void>;
};

export function createGuardedFetcher(opts: GuardedFetcherOptions = {}): GuardedFetcher {
  const allowHosts = opts.allowHosts ?? [];
  const timeoutMs = opts.timeoutMs ?? 8000;
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxRedirects = opts.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const agent = createGuardedAgent(opts);

  async function getJson(url: string, o: GetJsonOptions = {}) {
    const shape = checkUrlShape(url, allowHosts);
    if (!shape.ok) throw new ToolWorldError(`This address is not allowed: ${shape.message}`);
    let current = shape.url;
    // Model-supplied values only ever land here, encoded by URLSearchParams, never in host or path.
    for (const [k, v] of Object.entries(o.query ?? {})) {
      if (v !== undefined) current.searchParams.set(k, String(v));
    }
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = o.signal ? AbortSignal.any([o.signal, timeout]) : timeout;
    const firstOrigin = current.origin;
    for (let hop = 0; ; hop++) {
      const headers: Record<string, string> = {
        accept: "application/json",
        "user-agent": "michi-chat tool pack",
      };
      // A redirect to another origin must not carry the tenant's credential along.
      if (current.origin === firstOrigin) {
        if (o.headers) Object.assign(headers, o.headers);
        if (o.bearer) headers.authorization = `Bearer ${o.bearer}`;
      }
      let res: Dispatcher.ResponseData;
      try {
        res = await request(current, { method: "GET", dispatcher: agent, signal, headers });
      } catch (err) {
        throw requestFailure(err, timeout, o.signal);
      }
      const status = res.statusCode;
      const location = one(res.headers.location);
      if (status >= 300 && status < 400 && location) {
        discard(res.body);
        if (hop >= maxRedirects) throw new ToolWorldError("The site redirected too many times");
        const next = checkUrlShape(new URL(location, current).toString(), allowHosts);
        if (!next.ok) throw new ToolWorldError("The site redirected to an address that is not allowed");
        current = next.url;
        continue;
      }
      if (status < 200 || status >= 300) {
        discard(res.body);
        throw new ToolWorldError(
          status === 404 ? "Not found (HTTP 404)" : `The site answered with HTTP ${status}`,
          { status },
        );
      }
      const declared = Number(one(res.headers["content-length"]) ?? "0");
      if (declared > maxBytes) {
        discard(res.body);
        throw new ToolWorldError(`The response is larger than ${Math.round(maxBytes / 1024)} KB`);
      }
      let text: string;
      try {
        text = await readCapped(res.body, maxBytes);
      } catch (err) {
        if (isToolWorldError(err)) throw err;
        if (timeout.aborted) throw new ToolWorldError("The site did not answer in time");
        throw new ToolWorldError("The response was interrupted");
      }
      try {
        return JSON.parse(text);
      } catch {
        throw new ToolWorldError("The site did not answer with valid JSON");
      }
    }
  }

  const postJson = (url: string, body: unknown, o: PostJsonOptions) =>
    postJsonWith({ agent, allowHosts, timeoutMs, maxBytes }, url, body, o);
  return { getJson, postJson, close: () => agent.close() };
}

/** What withFetcher may stand in with: the conformance kit's canned answers have no postJson. */
type JsonFetcher = Pick<GuardedFetcher, "getJson"> & Partial<Pick<GuardedFetcher, "postJson">>;
const fetcher = processSlot<GuardedFetcher>("Fetcher");
const scope = processSlot<AsyncLocalStorage<JsonFetcher>>("FetcherScope").use(() => new AsyncLocalStorage());

/** The process-wide fetcher, configured from the environment on first use. */
export function defaultFetcher(): GuardedFetcher {
  return fetcher.use(() => {
    const e = env();
    return createGuardedFetcher({
      allowHosts: e.MICHI_FETCH_ALLOW_HOSTS,
      extraCaPem: e.MICHI_FETCH_EXTRA_CA ? readFileSync(e.MICHI_FETCH_EXTRA_CA, "utf8") : undefined,
      timeoutMs: e.MICHI_TOOL_TIMEOUT_MS,
    });
  });
}

/**
 * Runs `fn` with `getJson` answered by another fetcher: a guarded fetcher with a test CA, or the conformance
 * kit's canned answers. Scoped to this async call chain only, so concurrent conversations are unaffected.
 */
export function withFetcher<T>(fetcher: JsonFetcher, fn: () => Promise<T>): Promise<T> {
  return scope.run(fetcher, fn);
}

/** Fetches JSON for a pack through the guarded fetcher. Throws ToolWorldError for anything the model should hear. */
// biome-ignore lint/suspicious/noExplicitAny: upstream JSON is untyped until a pack projects it
export async function getJson(url: string, opts?: GetJsonOptions): Promise<any> {
  return (scope.getStore() ?? defaultFetcher()).getJson(url, opts);
}

/**
 * Posts JSON for a confirmed call through the guarded fetcher, signed (Standard Webhooks) when a secret is
 * given and always with the call's Idempotency-Key. Throws ToolWorldError for anything the model should hear.
 */
export async function postJson(url: string, body: unknown, opts: PostJsonOptions): Promise<unknown> {
  const f = scope.getStore() ?? defaultFetcher();
  if (!f.postJson) throw new ToolWorldError("Sending is not available here");
  return f.postJson(url, body, opts);
}

export type { PostJsonOptions };
