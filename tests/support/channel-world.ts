import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TenantContext } from "@/lib/auth/access";
import { connectTelegram, connectWhatsApp } from "@/lib/channels/connect";
import type { ChannelDeps } from "@/lib/channels/deps";
import { channelPacks } from "@/lib/channels/runtime";
import { channelWorkers } from "@/lib/channels/worker";
import type { PackDeps } from "@/lib/chat/turn";
import { getConnectionByChannel } from "@/lib/db/queries/channels";
import { channelContacts, channelInbound, channelOutbound, conversations, messages } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { type JobQueue, type QueueWorker, setProcessQueue, startQueue } from "@/lib/queue";
import { signature } from "../fixtures/channels/whatsapp/webhooks";
import { makeUser } from "./admin-world";
import { type ChatWorld, PLATFORM, startChatWorld } from "./chat-world";
import { type FakeGraphApi, startFakeGraphApi } from "./fake-graph-api";
import { type FakeTelegramApi, startFakeTelegramApi } from "./fake-telegram-api";

// The world of the channel integration tests: the chat world (fake model, fresh database), a fake Graph API
// on loopback reached through the operator allowlist and its CA, a business with WhatsApp connected through
// the real use case, and the real pg-boss workers polling fast with a backoff of about a second.

export const PUBLIC_URL = "https://chat.platform.test";
export const APP_SECRET = "0123456789abcdef0123456789abcdef";
export const VERIFY_TOKEN = "michi-verify-token-42";
const g = globalThis as unknown as Record<string, unknown>;

export type ChannelWorld = {
  w: ChatWorld;
  graph: FakeGraphApi;
  telegram: FakeTelegramApi;
  tenant: Awaited<ReturnType<ChatWorld["tenant"]>>;
  ctx: TenantContext;
  deps: ChannelDeps;
  queue: JobQueue;
  /** The connection's webhook path, /api/channels/whatsapp/<key>. */
  path: string;
  post(json: unknown, opts?: { secret?: string | null; key?: string }): Promise<Response>;
  /** An update as Telegram posts it, with the secret_token the connection registered (or `secret`). */
  postTelegram(json: unknown, opts?: { secret?: string | null }): Promise<Response>;
  rows(): Promise<{
    conversations: (typeof conversations.$inferSelect)[];
    messages: (typeof messages.$inferSelect)[];
    inbound: (typeof channelInbound.$inferSelect)[];
    outbound: (typeof channelOutbound.$inferSelect)[];
    contacts: (typeof channelContacts.$inferSelect)[];
  }>;
  close(): Promise<void>;
};

export async function startChannelWorld(
  opts: {
    packs?: PackDeps;
    bot?: Record<string, unknown>;
    sendRetryLimit?: number;
    /** More of the process's workers (the live takeover's escalation) beside the channels'. */
    workers?: (db: ChatWorld["db"]) => QueueWorker[];
  } = {},
): Promise<ChannelWorld> {
  const graph = await startFakeGraphApi();
  const telegram = await startFakeTelegramApi();
  const dir = mkdtempSync(path.join(tmpdir(), "michi-channels-"));
  const ca = path.join(dir, "ca.pem");
  writeFileSync(ca, `${graph.caPem}\n${telegram.caPem}`);
  const w = await startChatWorld({
    MICHI_FETCH_ALLOW_HOSTS: `${graph.host},${telegram.host}`,
    MICHI_FETCH_EXTRA_CA: ca,
    // Telegram accepts only an https webhook.
    MICHI_PUBLIC_URL: PUBLIC_URL,
  });
  g.__michiChannelWire = undefined;
  const tenant = await w.tenant({ bot: opts.bot });
  const owner = await makeUser(w.db, `owner-${tenant.slug}@example.com`);
  const ctx: TenantContext = {
    user: {
      id: owner.id,
      email: owner.email,
      name: owner.name,
      isOperator: false,
      mustChangePassword: false,
    },
    tenant,
    role: "owner",
    db: w.db,
  };
  await connectWhatsApp(
    ctx,
    {
      phoneNumberId: graph.phoneNumberId,
      accessToken: graph.accessToken,
      appSecret: APP_SECRET,
      verifyToken: VERIFY_TOKEN,
    },
    { graphBaseUrl: graph.baseUrl },
  );
  await connectTelegram(ctx, { botToken: telegram.token }, { telegramBaseUrl: telegram.baseUrl });
  const conn = await w.db.forTenant(tenant.id, (tx) => getConnectionByChannel(tx, "whatsapp"));
  const deps: ChannelDeps = {
    db: w.db,
    env: env(),
    // The product's channel packs (knowledge searcher included), with what a test brings over them.
    packs: { ...channelPacks(w.db), ...opts.packs },
    graphBaseUrl: graph.baseUrl,
    telegramBaseUrl: telegram.baseUrl,
    sendJobDelaySeconds: 1,
  };
  const fast = { retryDelaySeconds: 1, expireInSeconds: 30 };
  const queue = await startQueue(w.db, {
    workers: [...channelWorkers(deps), ...(opts.workers?.(w.db) ?? [])],
    pollingIntervalSeconds: 0.5,
    policies: {
      "channel-inbound": { ...fast, retryLimit: 3 },
      "channel-send": { ...fast, retryLimit: opts.sendRetryLimit ?? 2 },
    },
  });
  setProcessQueue(queue);
  const path_ = `/api/channels/whatsapp/${conn!.key}`;
  const world: ChannelWorld = {
    w,
    graph,
    telegram,
    tenant,
    ctx,
    deps,
    queue,
    path: path_,
    async post(json, o = {}) {
      const { POST } = await import("@/app/api/channels/[channel]/[key]/route");
      const raw = new TextEncoder().encode(JSON.stringify(json));
      const headers = new Headers({ "content-type": "application/json" });
      const secret = o.secret === undefined ? APP_SECRET : o.secret;
      if (secret) headers.set("x-hub-signature-256", await signature(raw, secret));
      const key = o.key ?? conn!.key;
      return POST(
        new Request(`${PLATFORM}/api/channels/whatsapp/${key}`, { method: "POST", headers, body: raw }),
        {
          params: Promise.resolve({ channel: "whatsapp", key }),
        },
      );
    },
    async postTelegram(json, o = {}) {
      const { POST } = await import("@/app/api/channels/[channel]/[key]/route");
      const url = new URL(telegram.webhook!.url);
      const key = url.pathname.split("/").at(-1)!;
      const headers = new Headers({ "content-type": "application/json" });
      const secret = o.secret === undefined ? telegram.webhook!.secretToken : o.secret;
      if (secret) headers.set("x-telegram-bot-api-secret-token", secret);
      return POST(new Request(url, { method: "POST", headers, body: JSON.stringify(json) }), {
        params: Promise.resolve({ channel: "telegram", key }),
      });
    },
    rows: () =>
      w.db.forTenant(tenant.id, async (tx) => ({
        conversations: await tx.select().from(conversations),
        messages: await tx.select().from(messages).orderBy(messages.createdAt, messages.id),
        inbound: await tx.select().from(channelInbound),
        outbound: await tx
          .select()
          .from(channelOutbound)
          .orderBy(channelOutbound.createdAt, channelOutbound.part),
        contacts: await tx.select().from(channelContacts),
      })),
    async close() {
      setProcessQueue(null);
      await queue.stop();
      await graph.close();
      await telegram.close();
      g.__michiChannelWire = undefined;
      await w.close();
    },
  };
  return world;
}

/** Waits until `check` passes (it polls the database; no fixed sleeps). */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
