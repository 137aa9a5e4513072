import "server-only";
import { createHash, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { type Agent, type Dispatcher, request } from "undici";
import { env } from "../env";
import { processSlot } from "../process-slot";
import { createGuardedAgent, type GuardedFetcherOptions } from "../security/fetch";
import { checkUrlShape, isAllowlisted } from "../security/url-policy";

// What both channels' API clients share: a constant-time compare for shared secrets, and the one HTTP door to
// the Graph API and the Bot API. Requests leave through the guarded agent (every address checked when the
// connection opens, https only), never follow a redirect, read a capped answer, and may only reach the
// channel's own host; the operator allowlist is the one exception (a fake server on loopback in tests).

/** Compares two secrets without leaking where they differ, nor (through the digests) their lengths. */
export function sameSecret(given: string | null | undefined, expected: string): boolean {
  if (typeof given !== "string" || given === "" || expected === "") return false;
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}

/** One answer from a channel API: the HTTP status and the parsed JSON body (null when it was not JSON). */
export type WireAnswer = { status: number; json: unknown; retryAfterHeader: string | null };

/** A failure before any answer: the request never reached the API or the answer never came back. */
export type WireFailure = { failed: "timeout" | "network" | "blocked" | "too_large"; message: string };

export type ChannelWire = {
  send(
    method: "GET" | "POST",
    url: string,
    opts?: { json?: unknown; bearer?: string },
  ): Promise<WireAnswer | WireFailure>;
  /** The hosts requests may reach besides the channel's own (the operator allowlist). */
  allowHosts: readonly string[];
  close(): Promise<void>;
};

const MAX_ANSWER_BYTES = 256 * 1024;

export function createChannelWire(opts: GuardedFetcherOptions = {}): ChannelWire {
  const allowHosts = opts.allowHosts ?? [];
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const maxBytes = opts.maxBytes ?? MAX_ANSWER_BYTES;
  const agent: Agent = createGuardedAgent(opts);

  async function send(
    method: "GET" | "POST",
    url: string,
    o: { json?: unknown; bearer?: string } = {},
  ): Promise<WireAnswer | WireFailure> {
    const shape = checkUrlShape(url, allowHosts);
    if (!shape.ok) return { failed: "blocked", message: "The channel's API address is not allowed" };
    const signal = AbortSignal.timeout(timeoutMs);
    const headers: Record<string, string> = {
      accept: "application/json",
      "user-agent": "michi-chat channels",
    };
    if (o.bearer) headers.authorization = `Bearer ${o.bearer}`;
    if (o.json !== undefined) headers["content-type"] = "application/json";
    let res: Dispatcher.ResponseData;
    try {
      res = await request(shape.url, {
        method,
        dispatcher: agent,
        signal,
        headers,
        body: o.json === undefined ? undefined : JSON.stringify(o.json),
      });
    } catch (err) {
      if (signal.aborted) return { failed: "timeout", message: "The channel's API did not answer in time" };
      if (isBlocked(err)) return { failed: "blocked", message: "The channel's API address is not allowed" };
      return { failed: "network", message: "The channel's API could not be reached" };
    }
    let text: string;
    try {
      text = await readCapped(res.body, maxBytes);
    } catch (err) {
      if (err instanceof TooLarge)
        return { failed: "too_large", message: "The channel's API answer was too large" };
      if (signal.aborted) return { failed: "timeout", message: "The channel's API did not answer in time" };
      return { failed: "network", message: "The channel's API answer was interrupted" };
    }
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
    const ra = res.headers["retry-after"];
    return { status: res.statusCode, json, retryAfterHeader: (Array.isArray(ra) ? ra[0] : ra) ?? null };
  }

  return { send, allowHosts, close: () => agent.close() };
}

class TooLarge extends Error {}

async function readCapped(body: Dispatcher.ResponseData["body"], maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += (chunk as Buffer).byteLength;
    if (total > maxBytes) {
      body.on("error", () => {});
      body.destroy();
      throw new TooLarge();
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function isBlocked(err: unknown): boolean {
  for (let e = err, i = 0; e && i < 5; e = (e as { cause?: unknown }).cause, i++) {
    if ((e as { blocked?: unknown }).blocked === true) return true;
  }
  return false;
}

const wire = processSlot<ChannelWire>("ChannelWire");

/** The process-wide wire, configured like the packs' fetcher (operator allowlist and extra CA). */
export function defaultChannelWire(): ChannelWire {
  return wire.use(() => {
    const e = env();
    return createChannelWire({
      allowHosts: e.MICHI_FETCH_ALLOW_HOSTS,
      extraCaPem: e.MICHI_FETCH_EXTRA_CA ? readFileSync(e.MICHI_FETCH_EXTRA_CA, "utf8") : undefined,
    });
  });
}

/**
 * The API base a client will call: the channel's own origin, or another one only when the operator allowlist
 * names its host (how tests reach a fake server). Anything else is refused when the client is made, so a
 * stored or typed address can never send a token elsewhere.
 */
export function channelBase(base: string, officialHost: string, allowHosts: readonly string[]): string {
  const url = new URL(base);
  const official = url.protocol === "https:" && url.host === officialHost;
  if (!official && !isAllowlisted(url.hostname, url.port, allowHosts)) {
    throw new Error(`A channel API client may only call https://${officialHost}`);
  }
  return url.toString().replace(/\/+$/, "");
}

/** Seconds to wait from an HTTP Retry-After header (seconds or a date), or null. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | null {
  if (!header) return null;
  const v = header.trim();
  if (/^[-+]?\d+(\.\d+)?$/.test(v)) {
    const n = Number(v);
    return n >= 0 ? Math.ceil(n) : null;
  }
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

/** What every channel API call answers: the sent message's id (or "" when the call has none), or why not. */
export type ChannelResult<T extends object = object> =
  | ({ ok: true; id: string } & T)
  | {
      ok: false;
      /** The API's own error code ("131047", "401"), or "timeout" / "network" / "blocked" / "invalid". */
      code: string;
      message: string;
      retryable: boolean;
      /** Seconds the API asked us to wait before trying again (Telegram's retry_after, Retry-After). */
      retryAfter: number | null;
    };

export type ChannelFailure = Extract<ChannelResult, { ok: false }>;

export function wireFailure(f: WireFailure): ChannelFailure {
  return {
    ok: false,
    code: f.failed,
    message: f.message,
    retryable: f.failed !== "blocked",
    retryAfter: null,
  };
}

export function isWireFailure(a: WireAnswer | WireFailure): a is WireFailure {
  return "failed" in a;
}
