import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { installTestDb } from "../support/admin-env";
import { cookieJar, outcome, setRequestHeaders } from "../support/admin-mocks";
import type { TestDb } from "../support/db";

vi.mock("next/headers", () => import("../support/admin-mocks").then((m) => m.headersModule));
vi.mock("next/cache", () => import("../support/admin-mocks").then((m) => m.cacheModule));

const { signUpAction } = await import("@/app/signup/actions");
const { default: SignInPage } = await import("@/app/signin/page");
const { renderToStaticMarkup } = await import("react-dom/server");
const { currentUser } = await import("@/lib/auth/access");
const { sessionCookieName } = await import("@/lib/auth/session-cookie");
const { authenticate } = await import("@/lib/auth/credentials");
const { signInThrottle } = await import("@/lib/auth/throttle");
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
  it("creates the person and their business with them as owner, then sends them to sign in", async () => {
    cookieJar.clear();
    expect(await outcome(() => signUpAction({}, form(valid)))).toEqual({
      kind: "redirect",
      url: "/signin?signedUp=1",
    });
    const [user] = await t.handle.platform.select().from(users).where(eq(users.email, "mia@cafe.test"));
    const [tenant] = await t.handle.platform.select().from(tenants).where(eq(tenants.slug, "cafe-michi"));
    expect(tenant).toMatchObject({ name: "Café Michi", status: "active" });
    const [m] = await t.handle.platform
      .select()
      .from(memberships)
      .where(eq(memberships.tenantId, tenant!.id));
    expect(m).toMatchObject({ userId: user!.id, role: "owner" });
    // No session yet: an existing e-mail gets no session either, so a session would tell the two apart.
    expect(cookieJar.get(sessionCookieName())).toBeUndefined();
    expect(await currentUser(t.handle)).toBeNull();
    const signIn = await authenticate(
      t.handle.platform,
      { email: "mia@cafe.test", password: valid.password, ip: "192.0.2.10" },
      signInThrottle(),
    );
    expect(signIn.ok && signIn.user.id).toBe(user!.id);
    const log = await t.handle.platform.select().from(auditLog).where(eq(auditLog.tenantId, tenant!.id));
    expect(log.map((e) => e.action)).toEqual(["tenant.created"]);
  });

  it("gives a second business with the same name the next free address", async () => {
    await outcome(() => signUpAction({}, form({ ...valid, email: "other@cafe.test" })));
    const names = await t.handle.platform.select().from(tenants).where(eq(tenants.name, "Café Michi"));
    expect(names.map((x) => x.slug).sort()).toEqual(["cafe-michi", "cafe-michi-2"]);
  });

  it("answers an e-mail that already has an account exactly like a new one, and creates nothing", async () => {
    cookieJar.clear();
    const before = await t.handle.platform.select().from(users).where(eq(users.email, "mia@cafe.test"));
    const taken = await outcome(() =>
      signUpAction(
        {},
        form({ ...valid, email: "MIA@cafe.test", businessName: "Another", password: "x".repeat(12) }),
      ),
    );
    const fresh = await outcome(() =>
      signUpAction({}, form({ ...valid, email: "nobody-yet@cafe.test", businessName: "Third" })),
    );
    expect(taken).toEqual(fresh);
    expect(taken).toEqual({ kind: "redirect", url: "/signin?signedUp=1" });
    // Where both land: one text that is true in both cases.
    const page = await SignInPage({ searchParams: Promise.resolve({ signedUp: "1" }) });
    expect(renderToStaticMarkup(page)).toContain(
      "Sign in with your e-mail and the password you chose to open your business. If this e-mail already had a michi-chat account, sign in with that account&#x27;s password instead.",
    );
    expect(cookieJar.get(sessionCookieName())).toBeUndefined();
    expect(await t.handle.platform.select().from(tenants).where(eq(tenants.name, "Another"))).toHaveLength(0);
    // The existing account is untouched: same password hash, same name.
    expect(await t.handle.platform.select().from(users).where(eq(users.email, "mia@cafe.test"))).toEqual(
      before,
    );
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
