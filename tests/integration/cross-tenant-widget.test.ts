import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signVisitorToken } from "@/lib/security/visitor-token";
import { installTestDb, TEST_PUBLIC_URL } from "../support/admin-env";
import type { TestDb } from "../support/db";
import {
  buildWorld,
  discoverWidgetRoutes,
  HTTP_METHODS,
  type MatrixCases,
  ROOT,
  type Side,
  snapshotTenant,
  type WidgetRouteCase,
  type World,
} from "./cross-tenant/harness";

// The cross-tenant matrix for the widget's public API: every route under src/app/api/widget is found in the
// source tree and needs a `widget` case (tests/integration/cross-tenant/*.cases.ts). A visitor of tenant A
// aims at tenant B: with A's token at B's key, and at A's key with B's ids (conversation, answer). Both must be
// refused and leave B as it was. Origins are ones each tenant allows, so only the tenant checks can refuse.

const caseFiles = import.meta.glob<{ cases: MatrixCases }>("./cross-tenant/*.cases.ts", { eager: true });
const allCases = Object.values(caseFiles).map((m) => m.cases);
const widgetCases: Record<string, WidgetRouteCase> = Object.assign(
  {},
  ...allCases.map((c) => c.widget ?? {}),
);

type AnyFn = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
const routes: { key: string; file: string; method: string; fn: AnyFn }[] = [];
for (const file of discoverWidgetRoutes()) {
  const mod = (await import(/* @vite-ignore */ path.join(ROOT, file))) as Record<string, unknown>;
  for (const method of HTTP_METHODS)
    if (typeof mod[method] === "function")
      routes.push({ key: `${file}#${method}`, file, method, fn: mod[method] as AnyFn });
}

let t: TestDb;
let w: World;

beforeAll(async () => {
  // A model is "configured" (never reached: every probe is refused before the model is called), so the chat
  // route gets as far as looking up B's conversation instead of stopping at "no model".
  process.env.OPENAI_BASE_URL = "http://127.0.0.1:9/v1";
  process.env.MICHI_MODELS = "matrix-model";
  t = await installTestDb();
  w = await buildWorld(t.handle);
  for (const c of allCases) await c.setup?.(w);
});
afterAll(async () => {
  delete process.env.OPENAI_BASE_URL;
  delete process.env.MICHI_MODELS;
  await t?.close();
});

const tokenOf = (s: Side) =>
  signVisitorToken(process.env.MICHI_AUTH_SECRET!, {
    tenantId: s.tenant.id,
    visitorId: `visitor-of-${s.tenant.slug}`,
  }).token;

function call(
  route: (typeof routes)[number],
  c: Extract<WidgetRouteCase, { kind: "visitor" }>,
  at: Side,
  token: string,
) {
  const params = { key: at.tenant.widgetKey, ...(c.params?.(w.b) ?? {}) };
  const path = route.file
    .replace(/^src\/app/, "")
    .replace(/\/route\.ts$/, "")
    .replace(/\[(\w+)\]/g, (_, k: string) => params[k as keyof typeof params] ?? k);
  const body = ["GET", "HEAD"].includes(route.method) ? undefined : JSON.stringify(c.body?.(w.b) ?? {});
  return route.fn(
    new Request(`${TEST_PUBLIC_URL}${path}`, {
      method: route.method,
      headers: {
        origin: `https://${at.tenant.slug}.example`,
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
      },
      body,
    }),
    { params: Promise.resolve(params) },
  );
}

describe("coverage of the widget API", () => {
  it("discovers the widget routes (sanity check of the discovery itself)", () => {
    expect(routes.map((r) => r.key)).toContain("src/app/api/widget/[key]/chat/route.ts#POST");
  });

  it("has a case for every widget route, and none for a route that no longer exists", () => {
    expect(routes.map((r) => r.key).filter((k) => !widgetCases[k])).toEqual([]);
    const known = new Set(routes.map((r) => r.key));
    expect(Object.keys(widgetCases).filter((k) => !known.has(k))).toEqual([]);
  });
});

describe("widget routes", () => {
  for (const route of routes) {
    const c = widgetCases[route.key];
    if (!c || c.kind === "public") continue;

    it(`${route.key}: A's visitor token at B's key is refused and B is untouched`, async () => {
      const before = await snapshotTenant(t.handle, w.b);
      const res = await call(route, c, w.b, tokenOf(w.a));
      expect(res.status, await res.clone().text()).toBe(401);
      expect(await snapshotTenant(t.handle, w.b)).toEqual(before);
    });

    it(`${route.key}: A's visitor at A's key with B's ids gets nothing of B`, async () => {
      const before = await snapshotTenant(t.handle, w.b);
      const res = await call(route, c, w.a, tokenOf(w.a));
      // Not found: B's records do not exist for A's visitor (RLS and the visitor check), not "forbidden".
      expect(res.status, await res.clone().text()).toBe(404);
      expect(await res.clone().text()).not.toContain(w.b.conversationId);
      expect(await snapshotTenant(t.handle, w.b)).toEqual(before);
    });
  }
});
