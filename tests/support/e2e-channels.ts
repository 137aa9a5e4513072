import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { startFakeGraphApi } from "./fake-graph-api";
import { startFakeTelegramApi } from "./fake-telegram-api";

// The channel providers of the e2e world: the fake Graph API (WhatsApp Cloud API) and the fake Bot API
// (Telegram) on loopback, the same fakes the channel integration tests use (tests/support/fake-graph-api.ts and
// fake-telegram-api.ts, each written from its provider's documentation). The app reaches them through
// MICHI_CHANNELS_GRAPH_URL / MICHI_CHANNELS_TELEGRAM_URL, the allowlist and the extra CA. They live in the world
// process and the specs run in others, so a small loopback HTTP server shows the specs what they were sent:
// GET /graph and GET /telegram, as JSON. Read-only: a spec tells its runs apart by its own customer numbers.

export type ChannelsWorld = {
  graph: { baseUrl: string; host: string; caPem: string; phoneNumberId: string; accessToken: string };
  telegram: { baseUrl: string; host: string; caPem: string; token: string };
  /** http://127.0.0.1:PORT of the read-only view. */
  viewUrl: string;
  close(): Promise<void>;
};

export async function startChannelsWorld(): Promise<ChannelsWorld> {
  const graph = await startFakeGraphApi();
  const telegram = await startFakeTelegramApi();
  const view = createServer((req, res) => {
    const body =
      req.url === "/graph"
        ? {
            sent: graph.sent,
            reads: graph.reads,
            // Only where each request went: the Authorization header holds the access token.
            requests: graph.requests.map((r) => ({ method: r.method, path: r.path })),
          }
        : req.url === "/telegram"
          ? { requests: telegram.requests.map((r) => ({ apiMethod: r.apiMethod })) }
          : null;
    res.writeHead(body ? 200 : 404, { "content-type": "application/json" }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => view.listen(0, "127.0.0.1", resolve));
  return {
    graph: {
      baseUrl: graph.baseUrl,
      host: graph.host,
      caPem: graph.caPem,
      phoneNumberId: graph.phoneNumberId,
      accessToken: graph.accessToken,
    },
    telegram: {
      baseUrl: telegram.baseUrl,
      host: telegram.host,
      caPem: telegram.caPem,
      token: telegram.token,
    },
    viewUrl: `http://127.0.0.1:${(view.address() as AddressInfo).port}`,
    async close() {
      await new Promise<void>((resolve) => view.close(() => resolve()));
      await graph.close();
      await telegram.close();
    },
  };
}
