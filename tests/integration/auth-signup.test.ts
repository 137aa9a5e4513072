import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { installTestDb } from "../support/admin-env";
import { cookieJar, outcome, setRequestHeaders } from "../support/admin-mocks";
import type { TestDb } from "../support/db";

vi.mock("next/headers", () => import("../support/admin-mocks").then((m) => m.headersModule));
vi.mock("next/cache", () => import("../support/admin-mocks").then((m) => m.cacheModule));

const { signUpAction } = await import("@/app/signup/actions");
const { currentUser } = await import("@/lib/auth/access");
const { sessionCookieName } = await import("@/lib/auth/session-cookie");
const { auditLog, memberships, tenants, users } = await import("@/lib/db/schema");

let t: TestDb;
beforeAll(async () => {
  t = await installTestDb();
  setRequestHeaders({ "x-michi-peer": "192.0.2.10" });
});
afterAll(() => t?.close());

const form = (v: Record<string, string>) => {
  const fd = new FormData();
  for (const [k, val] of Object.entries(v)) fd.set(k, val);
  return fd;
};
const valid = {
  name: "Mia",
  email: "Mia@Cafe.test",
  businessName: "Café Michi",
  password: "long enough password",
};

describe("sign-up", () => {
  it("creates the person, their business with them as owner, signs them in and opens its admin", async () => {
    cookieJar.clear();
    expect(await outcome(() => signUpAction({}, form(valid)))).toEqual({
      kind: "redirect",
      url: "/admin/cafe-michi",
    });
    const [user] = await t.handle.platform.select().from(users).where(eq(users.email, "mia@cafe.test"));
    const [tenant] = await t.handle.platform.select().from(tenants).where(eq(tenants.slug, "cafe-michi"));
    expect(tenant).toMatchObject({ name: "Café Michi", status: "active" });
    const [m] = await t.handle.platform
      .select()
      .from(memberships)
      .where(eq(memberships.tenantId, tenant!.id));
    expect(m).toMatchObject({ userId: user!.id, role: "owner" });
    expect(cookieJar.get(sessionCookieName())).toBeDefined();
    expect((await currentUser(t.handle))?.id).toBe(user!.id);
    const log = await t.handle.platform.select().from(auditLog).where(eq(auditLog.tenantId, tenant!.id));
    expect(log.map((e) => e.action)).toEqual(["tenant.created"]);
  });

  it("gives a second business with the same name the next free address", async () => {
    const r = await outcome(() => signUpAction({}, form({ ...valid, email: "other@cafe.test" })));
    expect(r).toEqual({ kind: "redirect", url: "/admin/cafe-michi-2" });
  });

  it("refuses an e-mail that already has an account, keeping what was typed", async () => {
    const state = await signUpAction({}, form({ ...valid, email: "MIA@cafe.test", businessName: "Another" }));
    expect(state).toMatchObject({
      ok: false,
      fieldErrors: { email: expect.stringMatching(/already exists/) },
    });
    expect(state.values).toMatchObject({ name: "Mia", businessName: "Another" });
    expect(state.values?.password).toBeUndefined();
    expect(await t.handle.platform.select().from(tenants).where(eq(tenants.name, "Another"))).toHaveLength(0);
  });

  it("explains every invalid field at once", async () => {
    const state = await signUpAction(
      {},
      form({ name: "", email: "nope", businessName: "x", password: "short" }),
    );
    expect(Object.keys(state.fieldErrors ?? {}).sort()).toEqual([
      "businessName",
      "email",
      "name",
      "password",
    ]);
  });

  it("is refused when sign-up is closed", async () => {
    process.env.MICHI_ALLOW_SIGNUP = "false";
    (globalThis as { __michiEnv?: unknown }).__michiEnv = undefined;
    try {
      const state = await signUpAction({}, form({ ...valid, email: "late@cafe.test" }));
      expect(state).toMatchObject({ ok: false, message: "Sign-up is closed on this installation." });
      expect(
        await t.handle.platform.select().from(users).where(eq(users.email, "late@cafe.test")),
      ).toHaveLength(0);
    } finally {
      process.env.MICHI_ALLOW_SIGNUP = "true";
      (globalThis as { __michiEnv?: unknown }).__michiEnv = undefined;
    }
  });
});
