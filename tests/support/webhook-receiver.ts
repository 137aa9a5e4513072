import type { IncomingHttpHeaders } from "node:http";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { certificates } from "./fixture-site";

// A webhook receiver as the Standard Webhooks specification describes one
// (https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md, "Verifying
// webhook authenticity" and "Consuming webhooks"): it takes a POST with the raw JSON body and the
// webhook-id / webhook-timestamp / webhook-signature headers, and answers 2xx to acknowledge; anything else
// (or no answer) counts as a failed attempt. It listens over https with a certificate for `localhost` from a
// throwaway CA, reached through the operator allowlist and extra CA like any intranet host.

export type ReceivedHook = { path: string; headers: IncomingHttpHeaders; body: string; at: number };

export type WebhookReceiver = {
  url: (path?: string) => string;
  /** localhost:PORT, for the allowlist. */
  host: string;
  caPem: string;
  received: ReceivedHook[];
  /** The status the next requests get (200 unless changed). */
  answer(status: number): void;
  /** Resolves once `n` requests have arrived. */
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedHook[]>;
  close(): Promise<void>;
};

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const { caPem, key, cert } = await certificates();
  const received: ReceivedHook[] = [];
  let status = 200;
  const waiters: { n: number; resolve: () => void }[] = [];
  const server = createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({
        path: new URL(req.url ?? "/", "https://localhost").pathname,
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
      });
      res.writeHead(status, { "content-type": "text/plain" }).end(status < 300 ? "ok" : "nope");
      for (const w of waiters.splice(0)) {
        if (received.length >= w.n) w.resolve();
        else waiters.push(w);
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path = "/hook") => `https://localhost:${port}${path}`,
    host: `localhost:${port}`,
    caPem,
    received,
    answer(s) {
      status = s;
    },
    waitFor(n, timeoutMs = 20_000) {
      if (received.length >= n) return Promise.resolve(received);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`expected ${n} webhook requests, got ${received.length}`)),
          timeoutMs,
        );
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve(received);
          },
        });
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
