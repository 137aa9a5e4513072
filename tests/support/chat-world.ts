import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { createParser } from "eventsource-parser";
import type { DbHandle } from "@/lib/db/client";
import { listMessages } from "@/lib/db/queries/conversations";
import { createTenant } from "@/lib/db/queries/tenants";
import {
  conversations,
  type TenantRateLimits,
  type TenantStatus,
  tenants,
  toolRuns,
  usageMonthly,
} from "@/lib/db/schema";
import { freshDb, type TestDb } from "./db";
import { type FakeModel, startFakeModel } from "./fake-model";

// The world the chat engine's integration tests share: a fresh database installed as the process handle, the
// fake model behind OPENAI_BASE_URL, and helpers to create tenants, get visitor tokens, chat and read events.
// env() is cached on globalThis, so the environment is set and the caches cleared before the first request.

export const PLATFORM = "http://platform.test";
export const SITE = "https://shop.example";

type G = Record<string, unknown>;
const g = globalThis as unknown as G;
const CACHES = [
  "__michiEnv",
  "__michiDb",
  "__michiLimiters",
  "__michiFetcher",
  "__michiStreams",
  "__michiLog",
  "__michiKnownTenants",
];

export type ChatWorld = {
  db: DbHandle;
  /** The test database's URL on Postgres; null on PGlite. */
  dbUrl: string | null;
  fake: FakeModel;
  tenant(opts?: TenantOpts): Promise<typeof tenants.$inferSelect>;
  session(key: string, opts?: { origin?: string | null; token?: string }): Promise<Response>;
  token(key: string, origin?: string): Promise<string>;
  chatRequest(key: string, body: unknown, opts?: ChatOpts): Request;
  /** The chat route's POST handler with chatRequest's request. */
  chat(key: string, body: unknown, opts?: ChatOpts): Promise<Response>;
  rows(tenantId: string): Promise<Rows>;
  close(): Promise<void>;
};

type TenantOpts = {
  siteDomains?: string[];
  status?: TenantStatus;
  rateLimits?: TenantRateLimits;
  monthlyTokenBudget?: number | null;
  bot?: Record<string, unknown>;
};
type ChatOpts = { token?: string | null; origin?: string | null; signal?: AbortSignal; raw?: boolean };
type Rows = Awaited<ReturnType<typeof readRows>>;

export type SseEvent = { event: string; data: Record<string, unknown> };

export async function readEvents(res: Response): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  const parser = createParser({
    onEvent: (e) => out.push({ event: e.event ?? "message", data: JSON.parse(e.data) }),
  });
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(dec.decode(value, { stream: true }));
  }
  return out;
}

/** The error of a refused widget request's JSON body. */
export const errorOf = async (res: Response) =>
  ((await res.json()) as { error: { code: string; message: string } }).error;

export const textOf = (events: SseEvent[]) =>
  events
    .filter((e) => e.event === "delta")
    .map((e) => e.data.text)
    .join("");

async function readRows(db: DbHandle, tenantId: string) {
  return db.forTenant(tenantId, async (tx) => {
    const convs = await tx.select().from(conversations);
    const msgs = (await Promise.all(convs.map((c) => listMessages(tx, c.id)))).flat();
    return {
      conversations: convs,
      messages: msgs,
      toolRuns: await tx.select().from(toolRuns),
      usage: await tx.select().from(usageMonthly),
    };
  });
}

/** Sets the environment for the chat engine; `extra` overrides (e.g. MICHI_MAX_TOOL_ROUNDS). */
export async function startChatWorld(extra: Record<string, string> = {}): Promise<ChatWorld> {
  const fake = await startFakeModel();
  const dir = mkdtempSync(path.join(tmpdir(), "michi-chat-test-"));
  const settings: Record<string, string> = {
    NODE_ENV: "test",
    MICHI_PUBLIC_URL: PLATFORM,
    MICHI_AUTH_SECRET: "chat-test-auth-secret-0123456789abcdef",
    MICHI_SECRET_KEY: Buffer.alloc(32, 9).toString("base64"),
    MICHI_DATA_DIR: dir,
    MICHI_LOG_LEVEL: "silent",
    OPENAI_BASE_URL: fake.url,
    OPENAI_API_KEY: "test-key",
    MICHI_MODELS: "fake-small,fake-large",
    // Generous by default so a loaded machine never trips them; fault tests pass their own short ones.
    MICHI_MODEL_IDLE_TIMEOUT_MS: "5000",
    MICHI_TOOL_TIMEOUT_MS: "5000",
    // A rating's event waits this long for its comment; a second keeps the tests quick and still shows it.
    MICHI_WEBHOOK_FEEDBACK_SETTLE_SECONDS: "1",
    ...extra,
  };
  // Restored on close: test files may share a worker process.
  const saved = Object.fromEntries(Object.keys(settings).map((k) => [k, process.env[k]]));
  Object.assign(process.env, settings);
  for (const k of CACHES) g[k] = undefined;
  const t: TestDb = await freshDb();
  g.__michiDb = Promise.resolve(t.handle);
  let n = 0;

  const world: ChatWorld = {
    db: t.handle,
    dbUrl: t.url,
    fake,
    async tenant(opts = {}) {
      n++;
      const row = await createTenant(t.handle.platform, {
        slug: `shop-${n}-${Math.random().toString(36).slice(2, 8)}`,
        name: `Shop ${n}`,
        siteDomains: opts.siteDomains ?? ["shop.example"],
        bot: opts.bot,
      });
      const [updated] = await t.handle.platform
        .update(tenants)
        .set({
          status: opts.status ?? "active",
          rateLimits: opts.rateLimits ?? null,
          monthlyTokenBudget: opts.monthlyTokenBudget ?? null,
        })
        .where(eq(tenants.id, row.id))
        .returning();
      return updated!;
    },
    async session(key, opts = {}) {
      const { POST } = await import("@/app/api/widget/[key]/session/route");
      const headers = new Headers();
      const origin = opts.origin === undefined ? SITE : opts.origin;
      if (origin) headers.set("origin", origin);
      if (opts.token) headers.set("authorization", `Bearer ${opts.token}`);
      return POST(new Request(`${PLATFORM}/api/widget/${key}/session`, { method: "POST", headers }), {
        params: Promise.resolve({ key }),
      });
    },
    async token(key, origin = SITE) {
      const res = await world.session(key, { origin });
      if (res.status !== 200) throw new Error(`session ${res.status}: ${await res.text()}`);
      return ((await res.json()) as { token: string }).token;
    },
    chatRequest(key, body, opts = {}) {
      const headers = new Headers({ "content-type": "application/json" });
      const origin = opts.origin === undefined ? SITE : opts.origin;
      if (origin) headers.set("origin", origin);
      if (opts.token) headers.set("authorization", `Bearer ${opts.token}`);
      return new Request(`${PLATFORM}/api/widget/${key}/chat`, {
        method: "POST",
        headers,
        body: opts.raw ? (body as string) : JSON.stringify(body),
        signal: opts.signal,
      });
    },
    async chat(key, body, opts = {}) {
      const { POST } = await import("@/app/api/widget/[key]/chat/route");
      return POST(world.chatRequest(key, body, opts), { params: Promise.resolve({ key }) });
    },
    rows: (tenantId) => readRows(t.handle, tenantId),
    async close() {
      for (const k of CACHES) g[k] = undefined;
      await fake.close();
      await t.close();
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    },
  };
  return world;
}

/** Writes a PEM to a temp file, for MICHI_FETCH_EXTRA_CA. */
export function pemFile(pem: string): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "michi-ca-")), "ca.pem");
  writeFileSync(file, pem);
  return file;
}
