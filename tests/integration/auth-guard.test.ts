import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { installTestDb, TEST_PUBLIC_URL } from "../support/admin-env";
import { actAs, outcome } from "../support/admin-mocks";
import { makeTenant, makeUser } from "../support/admin-world";
import type { TestDb } from "../support/db";

vi.mock("@/lib/auth/claims", () => import("../support/admin-mocks").then((m) => m.claimsModule));
vi.mock("next/headers", () => import("../support/admin-mocks").then((m) => m.headersModule));
vi.mock("next/cache", () => import("../support/admin-mocks").then((m) => m.cacheModule));

const { requireOperator, requireTenant, tenantAction, tenantRoute } = await import("@/lib/auth/guard");
const { AppError } = await import("@/lib/errors");
const { users, tenants } = await import("@/lib/db/schema");

let t: TestDb;
type U = Awaited<ReturnType<typeof makeUser>>;
let owner: U;
let viewer: U;
let outsider: U;
let operator: U;

beforeAll(async () => {
  t = await installTestDb();
  owner = await makeUser(t.handle, "owner@a.test");
  viewer = await makeUser(t.handle, "viewer@a.test");
  outsider = await makeUser(t.handle, "owner@b.test");
  operator = await makeUser(t.handle, "op@platform.test", { isOperator: true });
  await makeTenant(t.handle, "shop-a", [
    [owner, "owner"],
    [viewer, "viewer"],
  ]);
  await makeTenant(t.handle, "shop-b", [[outsider, "owner"]]);
});
afterAll(() => t?.close());

describe("requireTenant (pages)", () => {
  it("gives a member the tenant, their role and a database handle", async () => {
    actAs(viewer);
    const ctx = await requireTenant("shop-a");
    expect(ctx.tenant.slug).toBe("shop-a");
    expect(ctx.role).toBe("viewer");
    expect(ctx.user.email).toBe("viewer@a.test");
  });

  it("sends a signed-out visitor to the sign-in page, coming back to the tenant", async () => {
    actAs(null);
    expect(await outcome(() => requireTenant("shop-a"))).toEqual({
      kind: "redirect",
      url: `/signin?callbackUrl=${encodeURIComponent("/admin/shop-a")}`,
    });
  });

  it("answers 404 to a non-member, for an unknown slug and for a malformed one alike", async () => {
    actAs(outsider);
    for (const slug of ["shop-a", "no-such-shop", "../etc", "A"])
      expect(await outcome(() => requireTenant(slug))).toEqual({ kind: "not_found" });
  });

  it("does not let an operator into a tenant they are not a member of", async () => {
    actAs(operator);
    expect(await outcome(() => requireTenant("shop-a"))).toEqual({ kind: "not_found" });
  });

  it("refuses a member whose role is too low with a forbidden error", async () => {
    actAs(viewer);
    const r = await outcome(() => requireTenant("shop-a", "admin"));
    expect(r.kind).toBe("error");
    expect(r.kind === "error" && r.error instanceof AppError && r.error.code).toBe("forbidden");
  });

  it("treats a session issued before the session version changed as signed out", async () => {
    actAs(owner);
    await t.handle.platform
      .update(users)
      .set({ sessionVersion: owner.sessionVersion + 1 })
      .where(eq(users.id, owner.id));
    expect((await outcome(() => requireTenant("shop-a"))).kind).toBe("redirect");
    owner = (await t.handle.platform.select().from(users).where(eq(users.id, owner.id)))[0]!;
    actAs(owner);
    expect((await outcome(() => requireTenant("shop-a"))).kind).toBe("value");
  });
});

describe("requireOperator", () => {
  it("lets the operator in and answers 404 to everybody else", async () => {
    actAs(operator);
    expect((await requireOperator()).user.id).toBe(operator.id);
    actAs(owner);
    expect(await outcome(() => requireOperator())).toEqual({ kind: "not_found" });
  });
});

describe("tenantAction (server actions)", () => {
  const rename = tenantAction(
    "admin",
    z.object({
      name: z.string().trim().min(2, "Enter at least 2 characters"),
      password: z.string().optional(),
    }),
    async (ctx, input) => {
      await ctx.db.forTenant(ctx.tenant.id, (tx) =>
        tx.update(tenants).set({ name: input.name }).where(eq(tenants.id, ctx.tenant.id)),
      );
      return { message: "Saved." };
    },
  );
  const form = (v: Record<string, string>) => {
    const fd = new FormData();
    for (const [k, val] of Object.entries(v)) fd.set(k, val);
    return fd;
  };
  const nameOf = async (slug: string) =>
    (await t.handle.platform.select().from(tenants).where(eq(tenants.slug, slug)))[0]!.name;

  it("runs for a member with the role, in that member's tenant", async () => {
    actAs(owner);
    expect(await rename("shop-a", {}, form({ name: "Renamed A" }))).toMatchObject({
      ok: true,
      message: "Saved.",
    });
    expect(await nameOf("shop-a")).toBe("Renamed A");
  });

  it("returns field errors with what was typed, but never echoes a password", async () => {
    actAs(owner);
    const state = await rename("shop-a", {}, form({ name: "x", password: "hunter2-hunter2" }));
    expect(state.ok).toBe(false);
    expect(state.fieldErrors).toEqual({ name: "Enter at least 2 characters" });
    expect(state.values).toEqual({ name: "x" });
    expect(JSON.stringify(state)).not.toContain("hunter2");
  });

  it("refuses a viewer with a plain message and changes nothing", async () => {
    actAs(viewer);
    const state = await rename("shop-a", {}, form({ name: "Viewer was here" }));
    expect(state).toMatchObject({ ok: false });
    expect(state.message).toMatch(/Only an admin or owner/);
    expect(await nameOf("shop-a")).toBe("Renamed A");
  });

  it("refuses a member of another tenant as if the tenant did not exist", async () => {
    actAs(outsider);
    const state = await rename("shop-a", {}, form({ name: "Hijacked" }));
    expect(state).toMatchObject({ ok: false, message: expect.stringMatching(/not a member/) });
    expect(await nameOf("shop-a")).toBe("Renamed A");
  });

  it("turns an AppError into a message and rethrows Next's redirects", async () => {
    const failing = tenantAction("viewer", z.object({}), async () => {
      throw new AppError("conflict", "Someone else changed this first.");
    });
    actAs(viewer);
    expect(await failing("shop-a", {}, form({}))).toMatchObject({
      ok: false,
      message: "Someone else changed this first.",
    });
    actAs(null);
    expect((await outcome(() => failing("shop-a", {}, form({})))).kind).toBe("redirect");
  });
});

describe("tenantRoute (route handlers)", () => {
  const handler = tenantRoute("admin", async (_req, ctx) =>
    Response.json({ tenant: ctx.tenant.slug, id: ctx.params.id }),
  );
  const call = (method: string, slug: string, headers: Record<string, string> = {}) =>
    handler(
      new Request(`${TEST_PUBLIC_URL}/api/admin/${slug}/things/7`, {
        method,
        headers,
        body: method === "GET" ? undefined : "{}",
      }),
      {
        params: Promise.resolve({ tenant: slug, id: "7" }),
      },
    );
  const json = { "content-type": "application/json", origin: TEST_PUBLIC_URL };

  it("hands the handler the tenant and params for a member", async () => {
    actAs(owner);
    const res = await call("POST", "shop-a", json);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ tenant: "shop-a", id: "7" });
  });

  it("answers 404 JSON to a non-member and 401 when signed out", async () => {
    actAs(outsider);
    const res = await call("GET", "shop-a");
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe("not_found");
    actAs(null);
    expect((await call("GET", "shop-a")).status).toBe(401);
  });

  it("refuses state changes without JSON (415) or from another origin (403)", async () => {
    actAs(owner);
    expect(
      (await call("POST", "shop-a", { origin: TEST_PUBLIC_URL, "content-type": "text/plain" })).status,
    ).toBe(415);
    expect((await call("POST", "shop-a", { ...json, origin: "https://evil.example" })).status).toBe(403);
    expect((await call("DELETE", "shop-a", { "content-type": "application/json" })).status).toBe(403);
  });

  it("refuses a viewer with 403", async () => {
    actAs(viewer);
    expect((await call("POST", "shop-a", json)).status).toBe(403);
  });
});
