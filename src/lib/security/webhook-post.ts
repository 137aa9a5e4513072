import "server-only";
import { readFileSync } from "node:fs";
import type { ReadableStream } from "node:stream/web";
import { fetch } from "undici";
import { env } from "../env";
import { processSlot } from "../process-slot";
import { createGuardedAgent, type GuardedFetcherOptions } from "./fetch";
import { checkUrlShape } from "./url-policy";

// Webhook deliveries leave through the same door as packs: the guarded agent checks every address when it
// connects (https, no ports, public unicast only, the operator's allowlist and extra CA), with a time limit
// and a cap on what is read back. A delivery never follows a redirect: the receiver's answer is its verdict.

export type PostOutcome = { ok: true; status: number } | { ok: false; status: number | null; error: string };

export type WebhookPoster = {
  post(url: string, body: string, headers: Record<string, string>): Promise<PostOutcome>;
  close(): Promise<void>;
};

/** Bytes of the receiver's answer read before the connection is dropped; only the status matters. */
const MAX_ANSWER_BYTES = 64 * 1024;

export function createWebhookPoster(opts: GuardedFetcherOptions = {}): WebhookPoster {
  const allowHosts = opts.allowHosts ?? [];
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const maxBytes = opts.maxBytes ?? MAX_ANSWER_BYTES;
  const agent = createGuardedAgent(opts);

  async function post(url: string, body: string, headers: Record<string, string>): Promise<PostOutcome> {
    const shape = checkUrlShape(url, allowHosts);
    if (!shape.ok) return { ok: false, status: null, error: `address not allowed: ${shape.message}` };
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const res = await fetch(shape.url, {
        method: "POST",
        dispatcher: agent,
        redirect: "manual",
        signal,
        headers: { "content-type": "application/json", "user-agent": "michi-chat webhooks", ...headers },
        body,
      });
      await drain(res.body, maxBytes);
      if (res.status >= 200 && res.status < 300) return { ok: true, status: res.status };
      return { ok: false, status: res.status, error: `the receiver answered HTTP ${res.status}` };
    } catch (err) {
      if (signal.aborted) return { ok: false, status: null, error: "the receiver did not answer in time" };
      return { ok: false, status: null, error: reason(err) };
    }
  }

  return { post, close: () => agent.close() };
}

async function drain(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<void> {
  if (!body) return;
  const reader = body.getReader();
  let total = 0;
  for (;;) {
    const { done, value } = (await reader.read()) as { done: boolean; value: Uint8Array };
    if (done) return;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      return;
    }
  }
}

/** A short, secret-free cause for the delivery log (the connector's own refusal included). */
function reason(err: unknown): string {
  for (let e = err, i = 0; e && i < 5; e = (e as { cause?: unknown }).cause, i++) {
    const m = e as { blocked?: boolean; code?: string; message?: string };
    if (m.blocked) return "address not allowed";
    if (m.code === "ECONNREFUSED") return "connection refused";
    if (
      (typeof m.code === "string" && m.code.startsWith("ERR_TLS")) ||
      m.code === "DEPTH_ZERO_SELF_SIGNED_CERT"
    )
      return "the receiver's certificate is not trusted";
  }
  const message = err instanceof Error ? err.message : String(err);
  return message.slice(0, 200) || "the receiver could not be reached";
}

const poster = processSlot<WebhookPoster>("WebhookPoster");

/** The process-wide poster, configured like the packs' fetcher (allowlist, extra CA, time limit). */
export function defaultWebhookPoster(): WebhookPoster {
  return poster.use(() => {
    const e = env();
    return createWebhookPoster({
      allowHosts: e.MICHI_FETCH_ALLOW_HOSTS,
      extraCaPem: e.MICHI_FETCH_EXTRA_CA ? readFileSync(e.MICHI_FETCH_EXTRA_CA, "utf8") : undefined,
      timeoutMs: 10_000,
    });
  });
}
