import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { installTestDb, TEST_PUBLIC_URL } from "../support/admin-env";
import { actAs, outcome } from "../support/admin-mocks";
import type { TestDb } from "../support/db";
import {
  type ActionCase,
  buildWorld,
  discoverActionFiles,
  discoverPages,
  discoverRoutes,
  dynamicParams,
  HTTP_METHODS,
  type MatrixCases,
  type PageCase,
  ROOT,
  type RouteCase,
  snapshotAll,
  snapshotTenant,
  toFormData,
  type World,
} from "./cross-tenant/harness";

// For every admin page, route handler and server action found in the source tree, a member (owner) of
// tenant A aims at tenant B — by B's slug, or by A's slug with B's record ids — and must get a 404 or a
// refusal while nothing of B changes. See cross-tenant/harness.ts for how to add a case.

vi.mock("@/lib/auth/claims", () => import("../support/admin-mocks").then((m) => m.claimsModule));
vi.mock("next/headers", () => import("../support/admin-mocks").then((m) => m.headersModule));
vi.mock("next/cache", () => import("../support/admin-mocks").then((m) => m.cacheModule));
// Pages may call connection() to opt out of prerendering; outside a request it would throw.
vi.mock("next/server", async (importOriginal) => ({
  ...(await importOriginal<typeof import("next/server")>()),
  connection: async () => {},
}));

const { users } = await import("@/lib/db/schema");

// ---- what exists ------------------------------------------------------------------------------------------

const caseFiles = import.meta.glob<{ cases: MatrixCases }>("./cross-tenant/*.cases.ts", { eager: true });
const allCases = Object.values(caseFiles).map((m) => m.cases);
const actionCases: Record<string, ActionCase> = Object.assign({}, ...allCases.map((c) => c.actions ?? {}));
const pageCases: Record<string, PageCase> = Object.assign({}, ...allCases.map((c) => c.pages ?? {}));
const routeCases: Record<string, RouteCase> = Object.assign({}, ...allCases.map((c) => c.routes ?? {}));

type AnyFn = (...args: unknown[]) => Promise<unknown>;
const load = (file: string) =>
  import(/* @vite-ignore */ path.join(ROOT, file)) as Promise<Record<string, unknown>>;

const actionFiles = discoverActionFiles();
const discoveredActions: { key: string; fn: AnyFn }[] = [];
for (const file of actionFiles) {
  const mod = await load(file);
  for (const [name, value] of Object.entries(mod))
    if (typeof value === "function") discoveredActions.push({ key: `${file}#${name}`, fn: value as AnyFn });
}

const pageFiles = discoverPages();
const routeFiles = discoverRoutes();
const discoveredRoutes: { key: string; file: string; method: string; fn: AnyFn }[] = [];
for (const file of routeFiles) {
  const mod = await load(file);
  for (const method of HTTP_METHODS)
    if (typeof mod[method] === "function")
      discoveredRoutes.push({ key: `${file}#${method}`, file, method, fn: mod[method] as AnyFn });
}

const onlyTenantParam = (file: string) => {
  const p = dynamicParams(file);
  return p.length === 1 && p[0] === "tenant";
};
const isOperatorPage = (file: string) =>
  file.includes("/admin/operator/") && dynamicParams(file).length === 0;

function pageParams(file: string, w: World): Record<string, string>[] | null {
  const c = pageCases[file];
  if (c) return c.params(w);
  if (onlyTenantParam(file)) return [{ tenant: w.b.tenant.slug }];
  if (isOperatorPage(file)) return [{}];
  return null;
}
function routeParams(key: string, file: string, w: World): Record<string, string>[] | null {
  const c = routeCases[key];
  if (c) return c.params(w);
  return onlyTenantParam(file) ? [{ tenant: w.b.tenant.slug }] : null;
}

// ---- the world --------------------------------------------------------------------------------------------

let t: TestDb;
let w: World;

beforeAll(async () => {
  t = await installTestDb();
  w = await buildWorld(t.handle);
  for (const c of allCases) await c.setup?.(w);
});
afterAll(() => t?.close());

/** Acts as A's owner with their current session version (a probe may have bumped it). */
async function asOwnerOfA() {
  const [row] = await t.handle.platform.select().from(users).where(eq(users.id, w.a.owner.id));
  actAs(row!);
}

function isRefusal(r: Awaited<ReturnType<typeof outcome>>): boolean {
  if (r.kind === "not_found") return true;
  if (r.kind !== "value") return false;
  const v = r.value as { ok?: unknown } | null;
  return typeof v === "object" && v !== null && v.ok === false;
}

// ---- coverage: the matrix fails for anything without a case -----------------------------------------------

describe("coverage of the route tree", () => {
  it("discovers the admin surface (sanity check of the discovery itself)", () => {
    expect(discoveredActions.map((a) => a.key)).toContain(
      "src/app/(admin)/admin/[tenant]/team/actions.ts#inviteMemberAction",
    );
    expect(pageFiles).toContain("src/app/(admin)/admin/[tenant]/team/page.tsx");
    expect(pageFiles).toContain("src/app/(admin)/admin/[tenant]/layout.tsx");
    expect(discoveredActions.map((a) => a.key)).toContain("src/app/invite/actions.ts#openInvitationAction");
  });

  it("has a case for every exported server action", () => {
    const missing = discoveredActions.map((a) => a.key).filter((k) => !actionCases[k]);
    expect(missing, "add these to a tests/integration/cross-tenant/*.cases.ts file").toEqual([]);
  });

  it("has no case for an action that no longer exists", () => {
    const known = new Set(discoveredActions.map((a) => a.key));
    expect(Object.keys(actionCases).filter((k) => !known.has(k))).toEqual([]);
  });

  it("knows how to address every page and route handler", () => {
    const fakeWorld = { a: { tenant: { slug: "a" } }, b: { tenant: { slug: "b" } } } as unknown as World;
    const pagesMissing = pageFiles.filter((f) => !pageCases[f] && pageParams(f, fakeWorld) === null);
    const routesMissing = discoveredRoutes
      .filter((r) => !routeCases[r.key] && !onlyTenantParam(r.file))
      .map((r) => r.key);
    expect([...pagesMissing, ...routesMissing], "add a case with the params to try").toEqual([]);
  });
});

// ---- server actions ---------------------------------------------------------------------------------------

describe("server actions", () => {
  for (const { key, fn } of discoveredActions) {
    const c = actionCases[key];
    if (!c || c.kind === "public") continue;

    if (c.kind === "view") {
      it(`${key}: forged links show nothing of B and nothing changes`, async () => {
        for (const form of c.forms(w)) {
          await asOwnerOfA();
          const before = await snapshotAll(t.handle);
          const r = await outcome(() => fn({}, toFormData(form)));
          expect(r.kind, JSON.stringify(r)).toBe("value");
          c.expect((r as { value: unknown }).value, w);
          expect(await snapshotAll(t.handle)).toEqual(before);
        }
      });
      continue;
    }

    if (c.kind === "link") {
      it(`${key}: forged links are refused and nothing changes`, async () => {
        for (const form of c.forms(w)) {
          await asOwnerOfA();
          const before = await snapshotAll(t.handle);
          const r = await outcome(() => fn({}, toFormData(form)));
          // Refused, or sent somewhere that is not B's admin (a signed-in person is sent back to the link).
          const intoB = r.kind === "redirect" && r.url.startsWith(`/admin/${w.b.tenant.slug}`);
          expect(isRefusal(r) || (r.kind === "redirect" && !intoB), JSON.stringify(r)).toBe(true);
          expect(await snapshotAll(t.handle)).toEqual(before);
        }
      });
      continue;
    }

    if (c.kind === "operator") {
      it(`${key}: refused to a tenant owner who is not the operator`, async () => {
        await asOwnerOfA();
        const before = await snapshotAll(t.handle);
        const r = await outcome(() => fn({}, toFormData(c.form(w.b, w))));
        expect(isRefusal(r), JSON.stringify(r)).toBe(true);
        expect(await snapshotAll(t.handle)).toEqual(before);
      });
      continue;
    }

    it(`${key}: B's slug is refused and nothing changes`, async () => {
      await asOwnerOfA();
      const before = await snapshotAll(t.handle);
      const r = await outcome(() => fn(w.b.tenant.slug, {}, toFormData(c.form(w.b, w))));
      expect(isRefusal(r), JSON.stringify(r)).toBe(true);
      expect(await snapshotAll(t.handle)).toEqual(before);
    });

    it(`${key}: A's slug with B's ids leaves B untouched`, async () => {
      await asOwnerOfA();
      const before = await snapshotTenant(t.handle, w.b);
      await outcome(() => fn(w.a.tenant.slug, {}, toFormData(c.form(w.b, w))));
      expect(await snapshotTenant(t.handle, w.b)).toEqual(before);
    });
  }
});

// ---- pages and layouts ------------------------------------------------------------------------------------

describe("pages and layouts", () => {
  for (const file of pageFiles) {
    it(`${file}: 404 for a member of another tenant`, async () => {
      const mod = await load(file);
      const Page = mod.default as (props: Record<string, unknown>) => Promise<unknown>;
      const sets = pageParams(file, w);
      expect(sets, "no case for this page").not.toBeNull();
      for (const params of sets!) {
        await asOwnerOfA();
        const before = await snapshotAll(t.handle);
        const r = await outcome(async () =>
          Page({ params: Promise.resolve(params), searchParams: Promise.resolve({}), children: null }),
        );
        const custom = pageCases[file]?.expect;
        if (custom) custom(r, w);
        else expect(r, `params ${JSON.stringify(params)}`).toEqual({ kind: "not_found" });
        expect(await snapshotAll(t.handle)).toEqual(before);
      }
    });
  }
});

// ---- route handlers ---------------------------------------------------------------------------------------

describe("route handlers", () => {
  for (const route of discoveredRoutes) {
    it(`${route.key}: 404 for a member of another tenant`, async () => {
      const sets = routeParams(route.key, route.file, w);
      expect(sets, "no case for this route").not.toBeNull();
      const c = routeCases[route.key];
      for (const params of sets!) {
        await asOwnerOfA();
        const before = await snapshotAll(t.handle);
        const changes = !["GET", "HEAD"].includes(route.method);
        const url = `${TEST_PUBLIC_URL}/api/admin/${params.tenant ?? ""}${c?.query?.(w) ?? ""}`;
        const req = new Request(url, {
          method: route.method,
          // Correct JSON and Origin, so only the tenant check can refuse it.
          headers: changes ? { "content-type": "application/json", origin: TEST_PUBLIC_URL } : {},
          body: changes ? JSON.stringify(c?.body?.(w) ?? {}) : undefined,
        });
        const res = (await route.fn(req, { params: Promise.resolve(params) })) as Response;
        expect(res.status, `params ${JSON.stringify(params)}`).toBe(404);
        expect(await snapshotAll(t.handle)).toEqual(before);
      }
    });
  }
});
