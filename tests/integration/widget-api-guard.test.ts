import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { OPTIONS as chatOptions } from "@/app/api/widget/[key]/chat/route";
import { budgetStatus } from "@/lib/chat/limits";
import { addUsage, usageMonth } from "@/lib/db/queries/usage";
import { conversations, tenants } from "@/lib/db/schema";
import { signVisitorToken, verifyVisitorToken } from "@/lib/security/visitor-token";
import {
  type ChatWorld,
  errorOf,
  PLATFORM,
  readEvents,
  SITE,
  startChatWorld,
  textOf,
} from "../support/chat-world";

// Everything the widget endpoints refuse before a stream starts, and the session endpoint.

let w: ChatWorld;
let shop: Awaited<ReturnType<ChatWorld["tenant"]>>;
let other: Awaited<ReturnType<ChatWorld["tenant"]>>;

beforeAll(async () => {
  w = await startChatWorld();
  shop = await w.tenant({ siteDomains: ["shop.example", "http://localhost:5173"] });
  other = await w.tenant({ siteDomains: ["other.example"] });
});
afterAll(() => w?.close());
beforeEach(() => w.fake.reset());

const params = (key: string) => ({ params: Promise.resolve({ key }) });
const chat = (...a: Parameters<ChatWorld["chat"]>) => w.chat(...a);

describe("session endpoint", () => {
  it("issues a token bound to the tenant, renewable with the same visitor id", async () => {
    const res = await w.session(shop.widgetKey);
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe(SITE);
    expect(res.headers.get("set-cookie")).toBeNull();
    const body = (await res.json()) as { token: string; expiresAt: string };
    const ttl = new Date(body.expiresAt).getTime() - Date.now();
    expect(ttl).toBeGreaterThan(50 * 60_000);
    expect(ttl).toBeLessThanOrEqual(60 * 60_000);
    const first = verifyVisitorToken(process.env.MICHI_AUTH_SECRET!, body.token, shop.id);
    expect(first.ok).toBe(true);

    const renewed = (await (await w.session(shop.widgetKey, { token: body.token })).json()) as {
      token: string;
    };
    const second = verifyVisitorToken(process.env.MICHI_AUTH_SECRET!, renewed.token, shop.id);
    expect(second.ok && first.ok && second.claims.visitorId).toBe(first.ok && first.claims.visitorId);

    // A token of another tenant is no way to carry a visitor id across.
    const foreign = signVisitorToken(process.env.MICHI_AUTH_SECRET!, { tenantId: other.id }).token;
    const fresh = (await (await w.session(shop.widgetKey, { token: foreign })).json()) as { token: string };
    const third = verifyVisitorToken(process.env.MICHI_AUTH_SECRET!, fresh.token, shop.id);
    expect(third.ok && third.claims.visitorId).not.toBe(first.ok && first.claims.visitorId);
  });

  it("records that the widget was seen on the tenant's own site, not on the platform's preview", async () => {
    const t = await w.tenant();
    await w.session(t.widgetKey, { origin: PLATFORM });
    const seen = async () =>
      (await w.db.platform.select().from(tenants).where(eq(tenants.id, t.id)))[0]!.widgetSeenAt;
    expect(await seen()).toBeNull();
    await w.session(t.widgetKey, { origin: "https://www.shop.example" });
    expect(await seen()).toBeInstanceOf(Date);
  });

  it("refuses unknown keys, strange origins and suspended tenants", async () => {
    expect((await w.session("wk_nope")).status).toBe(404);
    expect((await w.session("../../etc")).status).toBe(404);
    const stranger = await w.session(shop.widgetKey, { origin: "https://evil.example" });
    expect(stranger.status).toBe(403);
    expect(stranger.headers.get("access-control-allow-origin")).toBeNull();
    expect((await w.session(shop.widgetKey, { origin: null })).status).toBe(403);
    expect((await w.session(shop.widgetKey, { origin: "http://shop.example" })).status).toBe(403);
    const suspended = await w.tenant({ status: "suspended" });
    const res = await w.session(suspended.widgetKey);
    expect(res.status).toBe(403);
    expect((await errorOf(res)).code).toBe("tenant_suspended");
  });
});

describe("CORS", () => {
  const preflight = (key: string, origin: string | null) => {
    const headers = new Headers({
      "access-control-request-method": "POST",
      "access-control-request-headers": "authorization, content-type",
    });
    if (origin) headers.set("origin", origin);
    return chatOptions(
      new Request(`${PLATFORM}/api/widget/${key}/chat`, { method: "OPTIONS", headers }),
      params(key),
    );
  };

  it("answers a preflight from an allowed origin, echoing it", async () => {
    for (const origin of [SITE, "https://www.shop.example", "http://localhost:5173", PLATFORM]) {
      const res = await preflight(shop.widgetKey, origin);
      expect(res.status).toBe(204);
      expect(res.headers.get("access-control-allow-origin")).toBe(origin);
      expect(res.headers.get("access-control-allow-headers")).toMatch(/Authorization/i);
      expect(res.headers.get("access-control-allow-methods")).toMatch(/POST/);
      expect(res.headers.get("vary")).toMatch(/Origin/);
    }
  });

  it("refuses a preflight or a request from any other origin, or without one", async () => {
    for (const origin of [
      "https://evil.example",
      "https://shop.example.evil.com",
      "http://localhost:5174",
      "null",
    ]) {
      const res = await preflight(shop.widgetKey, origin);
      expect(res.status).toBe(403);
      expect(res.headers.get("access-control-allow-origin")).toBeNull();
    }
    const token = await w.token(shop.widgetKey);
    expect(
      (await chat(shop.widgetKey, { message: "hi" }, { token, origin: "https://evil.example" })).status,
    ).toBe(403);
    expect((await chat(shop.widgetKey, { message: "hi" }, { token, origin: null })).status).toBe(403);
    expect(w.fake.requests).toHaveLength(0);
  });
});

describe("chat endpoint refusals", () => {
  it("404 for an unknown key, 403 when suspended", async () => {
    expect((await chat("wk_unknown", { message: "hi" })).status).toBe(404);
    const t = await w.tenant();
    const token = await w.token(t.widgetKey);
    await w.db.platform.update(tenants).set({ status: "suspended" }).where(eq(tenants.id, t.id));
    const res = await chat(t.widgetKey, { message: "hi" }, { token });
    expect(res.status).toBe(403);
    expect(res.headers.get("access-control-allow-origin")).toBe(SITE);
  });

  it("401 without a token, with a bad or expired one, or with another tenant's", async () => {
    const secret = process.env.MICHI_AUTH_SECRET!;
    const expired = signVisitorToken(secret, {
      tenantId: shop.id,
      now: new Date(Date.now() - 2 * 3600_000),
    }).token;
    const foreign = await w.token(other.widgetKey, "https://other.example");
    const forged = signVisitorToken("another-secret-0123456789-0123456789", { tenantId: shop.id }).token;
    for (const token of [null, "nonsense", expired, foreign, forged]) {
      const res = await chat(shop.widgetKey, { message: "hi" }, { token });
      expect(res.status).toBe(401);
      expect(res.headers.get("access-control-allow-origin")).toBe(SITE);
      expect((await errorOf(res)).message).toMatch(/session/i);
    }
    expect(w.fake.requests).toHaveLength(0);
  });

  it("400 for a body that does not parse, a blank message or one over 2,000 characters", async () => {
    const token = await w.token(shop.widgetKey);
    const cases: [unknown, boolean?][] = [
      ["{not json", true],
      [{}],
      [{ message: 42 }],
      [{ message: "   \n " }],
      [{ message: "x".repeat(2001) }],
      [{ message: "hi", conversationId: "not-a-uuid" }],
    ];
    for (const [body, raw] of cases) {
      const res = await chat(shop.widgetKey, body, { token, raw });
      expect(res.status).toBe(400);
    }
    // 2,000 characters after trimming is fine.
    const ok = await chat(shop.widgetKey, { message: ` ${"y".repeat(2000)} ` }, { token });
    expect(ok.status).toBe(200);
    await readEvents(ok);
    expect(w.fake.requests[0]!.body.messages.at(-1)!.content).toBe("y".repeat(2000));
  });

  it("404 for a conversation of another visitor or another tenant, and nothing is stored", async () => {
    const mine = await w.token(shop.widgetKey);
    const first = await readEvents(await chat(shop.widgetKey, { message: "hello" }, { token: mine }));
    const conversationId = first.at(-1)!.data.conversationId as string;
    const before = await w.rows(shop.id);

    const stranger = await w.token(shop.widgetKey);
    const res = await chat(shop.widgetKey, { conversationId, message: "let me in" }, { token: stranger });
    expect(res.status).toBe(404);
    const otherVisitor = await w.token(other.widgetKey, "https://other.example");
    const cross = await chat(
      other.widgetKey,
      { conversationId, message: "let me in" },
      {
        token: otherVisitor,
        origin: "https://other.example",
      },
    );
    expect(cross.status).toBe(404);
    expect((await w.rows(shop.id)).messages).toHaveLength(before.messages.length);
    expect((await w.rows(other.id)).messages).toHaveLength(0);
  });

  it("503 with a visitor message when no model is configured", async () => {
    const { handleChat } = await import("@/widget/server/chat");
    const { platformPacks } = await import("@/lib/chat/packs");
    const { env } = await import("@/lib/env");
    const token = await w.token(shop.widgetKey);
    const res = await handleChat(
      w.chatRequest(shop.widgetKey, { message: "hi" }, { token }),
      shop.widgetKey,
      {
        db: async () => w.db,
        env: () => ({ ...env(), OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined }),
        packs: platformPacks,
      },
    );
    expect(res.status).toBe(503);
    expect(await errorOf(res)).toMatchObject({
      code: "model_not_configured",
      message: expect.stringMatching(/not available/),
    });
    expect(w.fake.requests).toHaveLength(0);
  });
});

describe("limits", () => {
  it("429 with Retry-After once a visitor goes over the tenant's per-minute limit", async () => {
    const t = await w.tenant({ rateLimits: { visitorPerMin: 2 } });
    const token = await w.token(t.widgetKey);
    for (let i = 0; i < 2; i++) {
      const res = await chat(t.widgetKey, { message: `hi ${i}` }, { token });
      expect(res.status).toBe(200);
      await readEvents(res);
    }
    const res = await chat(t.widgetKey, { message: "one more" }, { token });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(res.headers.get("access-control-expose-headers")).toMatch(/Retry-After/);
    expect((await errorOf(res)).message).toMatch(/wait a moment/);
    // Refused before anything of the turn was written (on Postgres by the statement that opens the turn).
    expect((await w.rows(t.id)).messages.map((m) => m.content)).not.toContain("one more");
    // Another visitor of the same tenant is not affected.
    const someoneElse = await w.token(t.widgetKey);
    const ok = await chat(t.widgetKey, { message: "hello" }, { token: someoneElse });
    expect(ok.status).toBe(200);
    await readEvents(ok);
  });

  it("429 once one address goes over the per-address limit, whichever visitor tokens it uses", async () => {
    // Every request of this world comes from the same (unknown) peer address, as in the e2e world.
    const t = await w.tenant({ rateLimits: { visitorPerMin: 100, ipPerMin: 3 } });
    const tokens = [await w.token(t.widgetKey), await w.token(t.widgetKey), await w.token(t.widgetKey)];
    expect((await w.session(t.widgetKey)).status).toBe(429);
    for (const [i, token] of tokens.entries()) {
      const res = await chat(t.widgetKey, { message: `hi ${i}` }, { token });
      expect(res.status).toBe(200);
      await readEvents(res);
    }
    const res = await chat(t.widgetKey, { message: "one more" }, { token: tokens[0] });
    expect(res.status).toBe(429);
    expect((await errorOf(res)).code).toBe("rate_limited");
  });

  it("429 when the tenant already has its maximum of open streams", async () => {
    const t = await w.tenant({ rateLimits: { maxStreams: 1 } });
    w.fake.setRules([{ match: "stall", steps: [{ type: "stall" }] }]);
    const leave = new AbortController();
    const first = await chat(
      t.widgetKey,
      { message: "stall please" },
      { token: await w.token(t.widgetKey), signal: leave.signal },
    );
    expect(first.status).toBe(200);
    const second = await chat(t.widgetKey, { message: "me too" }, { token: await w.token(t.widgetKey) });
    expect(second.status).toBe(429);
    expect(second.headers.get("retry-after")).toBeTruthy();
    expect((await w.rows(t.id)).messages.map((m) => m.content)).not.toContain("me too");
    leave.abort();
    await readEvents(first);
    // The slot is free again once the first stream ended.
    const third = await chat(t.widgetKey, { message: "now?" }, { token: await w.token(t.widgetKey) });
    expect(third.status).toBe(200);
    await readEvents(third);
  });

  it("refuses with a clear 'unavailable' once the month's token budget is spent", async () => {
    const t = await w.tenant({ monthlyTokenBudget: 1000 });
    await w.db.forTenant(t.id, (tx) =>
      addUsage(tx, { tenantId: t.id, month: usageMonth(), promptTokens: 900, completionTokens: 50 }),
    );
    expect(await budgetStatus(w.db, t.id)).toMatchObject({
      limit: 1000,
      used: 950,
      remaining: 50,
      exhausted: false,
    });
    const token = await w.token(t.widgetKey);
    const ok = await chat(t.widgetKey, { message: "a long question ".repeat(50) }, { token });
    expect(ok.status).toBe(200);
    expect(textOf(await readEvents(ok))).toMatch(/You said/);
    const status = await budgetStatus(w.db, t.id);
    expect(status.exhausted).toBe(true);

    const res = await chat(t.widgetKey, { message: "still there?" }, { token });
    expect(res.status).toBe(429);
    expect(await errorOf(res)).toMatchObject({
      code: "budget_exhausted",
      message: expect.stringMatching(/unavailable/),
    });
    const rows = await w.rows(t.id);
    expect(rows.messages.filter((m) => m.role === "user")).toHaveLength(1);
  });

  it("treats a budget of 0 as no budget", async () => {
    const t = await w.tenant({ monthlyTokenBudget: 0 });
    await w.db.forTenant(t.id, (tx) =>
      addUsage(tx, { tenantId: t.id, month: usageMonth(), promptTokens: 10_000_000, completionTokens: 0 }),
    );
    expect(await budgetStatus(w.db, t.id)).toMatchObject({ limit: null, remaining: null, exhausted: false });
    const res = await chat(t.widgetKey, { message: "still open?" }, { token: await w.token(t.widgetKey) });
    expect(res.status).toBe(200);
    expect(textOf(await readEvents(res))).toMatch(/You said/);
  });

  it("frees the stream slot of a turn refused while it opens (a conversation that is not the visitor's)", async () => {
    const t = await w.tenant({ rateLimits: { maxStreams: 1 } });
    const owner = await w.token(t.widgetKey);
    const first = await readEvents(await chat(t.widgetKey, { message: "hello" }, { token: owner }));
    const conversationId = first.at(-1)!.data.conversationId as string;
    const stranger = await w.token(t.widgetKey);
    const refused = await chat(t.widgetKey, { conversationId, message: "let me in" }, { token: stranger });
    expect(refused.status).toBe(404);
    // With the only slot leaked, this would be a 429.
    const next = await chat(t.widgetKey, { message: "a chat of my own" }, { token: stranger });
    expect(next.status).toBe(200);
    await readEvents(next);
  });
});

describe("storage", () => {
  it("keeps conversations apart per visitor", async () => {
    const t = await w.tenant();
    const a = await w.token(t.widgetKey);
    const b = await w.token(t.widgetKey);
    await readEvents(await chat(t.widgetKey, { message: "from a" }, { token: a }));
    await readEvents(await chat(t.widgetKey, { message: "from b" }, { token: b }));
    const convs = await w.db.forTenant(t.id, (tx) => tx.select().from(conversations));
    expect(new Set(convs.map((c) => c.visitorId)).size).toBe(2);
  });
});
