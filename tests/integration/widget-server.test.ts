import { createHash, randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listRefusedOrigins } from "@/lib/db/queries/refused-origins";
import { createTenant } from "@/lib/db/queries/tenants";
import { conversations, messages, tenants, toolRuns } from "@/lib/db/schema";
import { parseEnv } from "@/lib/env";
import { signVisitorToken } from "@/lib/security/visitor-token";
import type { WidgetStoreDeps } from "@/widget/server/deps";
import { handleHistory } from "@/widget/server/history";
import { handleLauncherConfig, handlePanel } from "@/widget/server/panel-page";
import { freshDb, type TestDb } from "../support/db";

const PLATFORM = "http://localhost:39999";
const SHOP = "https://shop.example";
const env = parseEnv({
  NODE_ENV: "test",
  MICHI_PUBLIC_URL: PLATFORM,
  MICHI_SECRET_KEY: randomBytes(32).toString("base64"),
  MICHI_AUTH_SECRET: randomBytes(32).toString("base64"),
});
const secret = env.MICHI_AUTH_SECRET;
const assets = { js: "/w/panel.0123456789ab.js", css: "/w/panel.0123456789ab.css" };

let t: TestDb;
let deps: WidgetStoreDeps;
let a: typeof tenants.$inferSelect;
let b: typeof tenants.$inferSelect;
let suspended: typeof tenants.$inferSelect;
let convId: string;

beforeAll(async () => {
  t = await freshDb();
  deps = { db: async () => t.handle, env: () => env };
  a = await createTenant(t.handle.platform, {
    slug: "shop-a",
    name: "Shop A",
    siteDomains: ["shop.example", "http://localhost:5173"],
    bot: { displayName: "Ava", greeting: "Hello!", color: "#0f766e", language: "de", instructions: "SECRET" },
  });
  b = await createTenant(t.handle.platform, { slug: "shop-b", name: "Shop B", siteDomains: ["b.example"] });
  suspended = await createTenant(t.handle.platform, {
    slug: "gone",
    name: "Gone",
    siteDomains: ["gone.example"],
  });
  await t.handle.platform.update(tenants).set({ status: "suspended" }).where(eq(tenants.id, suspended.id));
  convId = await t.handle.forTenant(a.id, async (tx) => {
    const [c] = await tx
      .insert(conversations)
      .values({ tenantId: a.id, visitorId: "visitor-one-000001" })
      .returning();
    await tx.insert(messages).values([
      {
        tenantId: a.id,
        conversationId: c!.id,
        role: "user",
        content: "are you open now?",
        createdAt: new Date(1000),
      },
      {
        tenantId: a.id,
        conversationId: c!.id,
        role: "assistant",
        content: "Yes, until 18:00.",
        createdAt: new Date(2000),
      },
    ]);
    return c!.id;
  });
});

afterAll(() => t?.close());

const token = (tenantId: string, visitorId: string) =>
  signVisitorToken(secret, { tenantId, visitorId }).token;
const historyReq = (key: string, id: string, headers: Record<string, string>) =>
  handleHistory(new Request(`${PLATFORM}/api/widget/${key}/conversations/${id}`, { headers }), key, id, deps);
const samePanel = { "sec-fetch-site": "same-origin" };

describe("GET /api/widget/[key]/conversations/[id]", () => {
  it("gives the visitor their own messages in order, without internals", async () => {
    const res = await historyReq(a.widgetKey, convId, {
      ...samePanel,
      authorization: `Bearer ${token(a.id, "visitor-one-000001")}`,
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    // Each message's id too: the panel rates an answer read back after a reload by it.
    expect(body.messages).toEqual([
      {
        id: expect.any(String),
        role: "user",
        content: "are you open now?",
        createdAt: new Date(1000).toISOString(),
      },
      {
        id: expect.any(String),
        role: "assistant",
        content: "Yes, until 18:00.",
        createdAt: new Date(2000).toISOString(),
      },
    ]);
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("gives each answer its chips in the widget's language, and says which answer failed and why", async () => {
    const visitor = "visitor-chips-00001";
    const { id, answerId } = await t.handle.forTenant(a.id, async (tx) => {
      const [c] = await tx.insert(conversations).values({ tenantId: a.id, visitorId: visitor }).returning();
      const [, answer] = await tx
        .insert(messages)
        .values([
          {
            tenantId: a.id,
            conversationId: c!.id,
            role: "user",
            content: "open?",
            createdAt: new Date(1000),
          },
          {
            tenantId: a.id,
            conversationId: c!.id,
            role: "assistant",
            content: "Yes.",
            createdAt: new Date(2000),
          },
          {
            tenantId: a.id,
            conversationId: c!.id,
            role: "user",
            content: "and now?",
            createdAt: new Date(3000),
          },
          {
            tenantId: a.id,
            conversationId: c!.id,
            role: "assistant",
            content: "",
            status: "failed",
            reason: "model_busy",
            createdAt: new Date(4000),
          },
        ])
        .returning();
      const run = {
        tenantId: a.id,
        conversationId: c!.id,
        messageId: answer!.id,
        args: { hint: "ARG-XYZZY" },
        result: '{"note":"RESULT-XYZZY"}',
      };
      const sizes = { resultChars: 2, resultTokens: 1, durationMs: 5 };
      await tx.insert(toolRuns).values([
        { ...run, ...sizes, packId: "get_opening_status", callId: "call-XYZZY-1", outcome: "ok" as const },
        { ...run, ...sizes, packId: "get_menu", callId: "call-XYZZY-2", outcome: "timeout" as const },
        { ...run, ...sizes, packId: "no_such_pack", callId: "call-XYZZY-3", outcome: "ok" as const },
      ]);
      return { id: c!.id, answerId: answer!.id };
    });
    const url = `${PLATFORM}/api/widget/${a.widgetKey}/conversations/${id}?lang=ja`;
    const res = await handleHistory(
      new Request(url, { headers: { ...samePanel, authorization: `Bearer ${token(a.id, visitor)}` } }),
      a.widgetKey,
      id,
      deps,
    );
    const body = (await res.json()) as { messages: Record<string, unknown>[] };
    expect(body.messages.map((m) => [m.role, m.content, m.status ?? null, m.reason ?? null])).toEqual([
      ["user", "open?", null, null],
      ["assistant", "Yes.", null, null],
      ["user", "and now?", null, null],
      ["assistant", "", "failed", "model_busy"],
    ]);
    const answer = body.messages.find((m) => m.id === answerId);
    expect(answer?.chips).toEqual([
      { label: "営業中か確認しています", state: "done" },
      { label: expect.any(String), state: "error" },
    ]);
    // Nothing of the run itself (arguments, results) reaches the visitor.
    expect(JSON.stringify(body)).not.toContain("XYZZY");
  });

  it("gives a reloaded answer the sources it cited, from its own search only", async () => {
    const visitor = "visitor-cites-00001";
    const page = "https://shop.example/help/returns";
    const { id, answerId, otherId } = await t.handle.forTenant(a.id, async (tx) => {
      const [c] = await tx.insert(conversations).values({ tenantId: a.id, visitorId: visitor }).returning();
      const base = { tenantId: a.id, conversationId: c!.id };
      const [, answer, , other] = await tx
        .insert(messages)
        .values([
          { ...base, role: "user", content: "returns?", createdAt: new Date(1000) },
          // A second address in the text is not a source: only the search's passages are.
          {
            ...base,
            role: "assistant",
            content: "Within 30 days [1], with the receipt [3]. See https://evil.example [2].",
            createdAt: new Date(2000),
          },
          { ...base, role: "user", content: "thanks", createdAt: new Date(3000) },
          { ...base, role: "assistant", content: "You are welcome [1].", createdAt: new Date(4000) },
        ])
        .returning();
      await tx.insert(toolRuns).values({
        ...base,
        messageId: answer!.id,
        packId: "search_knowledge",
        callId: "call-cites-1",
        outcome: "ok" as const,
        args: { query: "returns" },
        result: JSON.stringify({
          found: true,
          passages: [
            { n: 1, title: "Returns", url: page, text: "Within 30 days." },
            // A passage of an uploaded document: no address, so cited by its name and never as a link.
            { n: 3, title: "Returns policy.pdf", document: "Returns policy.pdf", text: "Bring the receipt." },
          ],
        }),
        resultChars: 10,
        resultTokens: 3,
        durationMs: 5,
      });
      return { id: c!.id, answerId: answer!.id, otherId: other!.id };
    });
    const res = await historyReq(a.widgetKey, id, {
      ...samePanel,
      authorization: `Bearer ${token(a.id, visitor)}`,
    });
    const body = (await res.json()) as { messages: Record<string, unknown>[] };
    expect(body.messages.find((m) => m.id === answerId)?.citations).toEqual([
      { n: 1, title: "Returns", url: page },
      { n: 3, title: "Returns policy.pdf" },
    ]);
    // The later answer ran no search: its [1] names nothing.
    expect(body.messages.find((m) => m.id === otherId)?.citations).toBeUndefined();
    expect(JSON.stringify(body)).not.toContain('Within 30 days."');
  });

  it("answers 404 for another visitor's conversation and for the same id under another tenant's key", async () => {
    const other = await historyReq(a.widgetKey, convId, {
      ...samePanel,
      authorization: `Bearer ${token(a.id, "visitor-two-0000002")}`,
    });
    expect(other.status).toBe(404);
    const crossTenant = await historyReq(b.widgetKey, convId, {
      ...samePanel,
      authorization: `Bearer ${token(b.id, "visitor-one-000001")}`,
    });
    expect(crossTenant.status).toBe(404);
    expect(JSON.stringify(await crossTenant.json())).not.toContain("open now");
  });

  it("refuses a missing, forged or other-tenant token with 401", async () => {
    for (const auth of [undefined, "Bearer nonsense.sig", `Bearer ${token(b.id, "visitor-one-000001")}`]) {
      const res = await historyReq(a.widgetKey, convId, {
        ...samePanel,
        ...(auth ? { authorization: auth } : {}),
      });
      expect(res.status).toBe(401);
    }
  });

  it("applies the chat endpoint's origin rules: allowed origins get CORS, others 403, no origin needs same-origin", async () => {
    const auth = { authorization: `Bearer ${token(a.id, "visitor-one-000001")}` };
    const allowed = await historyReq(a.widgetKey, convId, { ...auth, origin: SHOP });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get("access-control-allow-origin")).toBe(SHOP);
    expect(allowed.headers.get("vary")).toContain("Origin");
    const stranger = await historyReq(a.widgetKey, convId, { ...auth, origin: "https://evil.example" });
    expect(stranger.status).toBe(403);
    expect(stranger.headers.get("access-control-allow-origin")).toBeNull();
    const bare = await historyReq(a.widgetKey, convId, auth);
    expect(bare.status).toBe(403);
  });

  it("answers 404 for an unknown key or a malformed id, and refuses a suspended tenant", async () => {
    const auth = { ...samePanel, authorization: `Bearer ${token(a.id, "visitor-one-000001")}` };
    expect((await historyReq("wk_nope_nope", convId, auth)).status).toBe(404);
    expect((await historyReq(a.widgetKey, "not-a-uuid", auth)).status).toBe(404);
    const s = await historyReq(suspended.widgetKey, convId, {
      ...samePanel,
      authorization: `Bearer ${token(suspended.id, "visitor-one-000001")}`,
    });
    expect(s.status).toBe(403);
  });
});

const panel = (key: string, query = "", headers: Record<string, string> = {}) =>
  handlePanel(new Request(`${PLATFORM}/w/${key}${query}`, { headers }), key, deps, assets);

describe("GET /w/[key]", () => {
  it("serves the panel with the tenant's frame-ancestors and a strict policy", async () => {
    const res = await panel(a.widgetKey, `?p=${encodeURIComponent(`${SHOP}/menu?secret=1`)}`);
    expect(res.status).toBe(200);
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain(
      `frame-ancestors ${PLATFORM} https://shop.example https://*.shop.example http://localhost:5173`,
    );
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    const html = await res.text();
    const cfg = JSON.parse(/type="application\/json">([^<]*)</.exec(html)![1]!);
    expect(cfg).toMatchObject({ name: "Ava", greeting: "Hello!", lang: "de", parentOrigin: SHOP });
    expect(cfg.pageUrl).toBe(`${SHOP}/menu`);
    expect(html).not.toContain("SECRET");
    expect(html).toContain(assets.js);
  });

  it("never trusts an embedding origin the tenant does not list", async () => {
    const res = await panel(a.widgetKey, `?p=${encodeURIComponent("https://evil.example/")}`);
    const cfg = JSON.parse(/type="application\/json">([^<]*)</.exec(await res.text())![1]!);
    expect(cfg.parentOrigin).toBeNull();
  });

  it("picks data-michi-lang over the tenant's language", async () => {
    const res = await panel(a.widgetKey, "?lang=ja");
    expect(await res.text()).toContain('<html lang="ja">');
  });

  it("answers a small 404 page for an unknown key or a suspended tenant", async () => {
    const unknown = await panel("wk_unknown_key");
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(await unknown.text()).toContain("not available");
    const gone = await panel(suspended.widgetKey);
    expect(gone.status).toBe(404);
  });
});

const launcher = (key: string, headers: Record<string, string> = {}) =>
  handleLauncherConfig(new Request(`${PLATFORM}/w/${key}/config`, { headers }), key, deps);

describe("GET /w/[key]/config", () => {
  it("answers an allowed site with CORS and records that the widget was seen there", async () => {
    const res = await launcher(a.widgetKey, { origin: SHOP, "accept-language": "fr-FR" });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe(SHOP);
    expect(await res.json()).toMatchObject({ color: "#0f766e", onColor: "#ffffff", label: "Chat öffnen" });
    const [row] = await t.handle.platform.select().from(tenants).where(eq(tenants.id, a.id));
    expect(row?.widgetSeenAt).toBeInstanceOf(Date);
  });

  it("refuses a site that is not on the tenant's list, and draws nothing for unknown or suspended keys", async () => {
    const stranger = await launcher(a.widgetKey, { origin: "https://evil.example" });
    expect(stranger.status).toBe(403);
    expect(stranger.headers.get("access-control-allow-origin")).toBeNull();
    expect((await launcher("wk_unknown_key", { origin: SHOP })).status).toBe(404);
    expect((await launcher(suspended.widgetKey, { origin: "https://gone.example" })).status).toBe(404);
  });

  it("is cached for at most a minute and revalidated by ETag: 304 while unchanged, a new tag after a change", async () => {
    const first = await launcher(b.widgetKey, { origin: "https://b.example" });
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^W\/"/);
    const cache = first.headers.get("cache-control") ?? "";
    const seconds = [...cache.matchAll(/(?:max-age|stale-while-revalidate)=(\d+)/g)].map((m) => Number(m[1]));
    expect(seconds.reduce((x, y) => x + y, 0)).toBeLessThanOrEqual(60);
    const same = await launcher(b.widgetKey, { origin: "https://b.example", "if-none-match": etag! });
    expect(same.status).toBe(304);
    expect(await same.text()).toBe("");
    await t.handle.platform
      .update(tenants)
      .set({ bot: { color: "#aa0000" } })
      .where(eq(tenants.id, b.id));
    const changed = await launcher(b.widgetKey, { origin: "https://b.example", "if-none-match": etag! });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
    expect(await changed.json()).toMatchObject({ color: "#aa0000" });
  });

  it("as a frame page (?o=origin): one hashed inline script posting the settings to that origin only", async () => {
    const frame = (key: string, o: string) =>
      handleLauncherConfig(new Request(`${PLATFORM}/w/${key}/config?o=${encodeURIComponent(o)}`), key, deps);
    const ok = await frame(a.widgetKey, SHOP);
    expect(ok.status).toBe(200);
    const html = await ok.text();
    const script = /<script>(.*)<\/script>/.exec(html)?.[1] ?? "";
    expect(script).toContain(`"https://shop.example"`);
    expect(script).toContain(`"type":"config"`);
    const csp = ok.headers.get("content-security-policy") ?? "";
    const hash = createHash("sha256").update(script).digest("base64");
    expect(csp).toContain(`script-src 'sha256-${hash}'`);
    expect(csp).toContain("frame-ancestors");
    expect(csp).toContain(SHOP);
    expect(ok.headers.get("etag")).toBeTruthy();
    // A site not on the list gets a frame only that site may show, posting one sentence and no settings.
    const refused = await frame(a.widgetKey, "https://www.other-shop.example");
    expect(refused.status).toBe(403);
    const told = /<script>(.*)<\/script>/.exec(await refused.text())?.[1] ?? "";
    expect(told).toContain(`"type":"refused"`);
    expect(told).toContain("Add www.other-shop.example under Site");
    expect(told).not.toContain(`"c":`);
    const refusedCsp = refused.headers.get("content-security-policy") ?? "";
    expect(refusedCsp).toContain("frame-ancestors https://www.other-shop.example");
    expect(refusedCsp).toContain(`script-src 'sha256-${createHash("sha256").update(told).digest("base64")}'`);
    // A reported origin that is not a bare origin never reaches a header; an unknown key and a suspended
    // business get a page that posts nothing.
    for (const res of [
      await frame(a.widgetKey, "https://evil.example; script-src *"),
      await frame(a.widgetKey, "https://evil.example/path"),
      await frame("wk_unknown_key", SHOP),
      await frame(suspended.widgetKey, "https://gone.example"),
    ]) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(await res.text()).not.toContain("postMessage");
    }
  });

  it("remembers the refused sites for Site & embed: one write a minute per site, the 20 newest kept", async () => {
    const frame = (o: string) =>
      handleLauncherConfig(
        new Request(`${PLATFORM}/w/${b.widgetKey}/config?o=${encodeURIComponent(o)}`),
        b.widgetKey,
        deps,
      );
    await frame("https://b-staging.example");
    await frame("https://b-staging.example"); // within the minute: not written again
    await frame("https://evil.example; x"); // not a bare origin: neither told nor kept
    let list = await t.handle.forTenant(b.id, listRefusedOrigins);
    expect(list.map((r) => [r.origin, r.hits])).toEqual([["https://b-staging.example", 1]]);
    for (let i = 0; i < 22; i++) await frame(`https://s${i}.example`);
    list = await t.handle.forTenant(b.id, listRefusedOrigins);
    expect(list).toHaveLength(20);
    expect(list.map((r) => r.origin)).toContain("https://s21.example");
    expect(list.map((r) => r.origin)).not.toContain("https://b-staging.example");
    // Another business sees none of them.
    expect(await t.handle.forTenant(a.id, listRefusedOrigins)).not.toContainEqual(
      expect.objectContaining({ origin: "https://s21.example" }),
    );
  });
});
