import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { installTestDb } from "../support/admin-env";
import { cookieJar, outcome, setRequestHeaders } from "../support/admin-mocks";
import { makeTenant, makeUser, TEST_PASSWORD } from "../support/admin-world";
import type { TestDb } from "../support/db";

// The real cookie path: tokens are minted with next-auth's encoder and read back by the real claims reader
// through a stand-in cookie jar. Only next/headers and next/cache are replaced.
vi.mock("next/headers", () => import("../support/admin-mocks").then((m) => m.headersModule));
vi.mock("next/cache", () => import("../support/admin-mocks").then((m) => m.cacheModule));

const { currentUser } = await import("@/lib/auth/access");
const { requireTenant } = await import("@/lib/auth/guard");
const { encodeSession, issueSession, sessionCookieName } = await import("@/lib/auth/session-cookie");
const { authOptions } = await import("@/lib/auth/options");
const { changePasswordAction, signOutEverywhereAction } = await import(
  "@/app/(admin)/admin/[tenant]/account/actions"
);
const { users } = await import("@/lib/db/schema");
const { authenticate } = await import("@/lib/auth/credentials");
const { hashPassword, verifyPassword } = await import("@/lib/auth/password");

let t: TestDb;
let user: Awaited<ReturnType<typeof makeUser>>;

beforeAll(async () => {
  t = await installTestDb();
  user = await makeUser(t.handle, "sam@shop.test");
  await makeTenant(t.handle, "sams-shop", [[user, "owner"]]);
});
afterAll(() => t?.close());

async function fresh() {
  return (await t.handle.platform.select().from(users).where(eq(users.id, user.id)))[0]!;
}
function presentToken(token: string | undefined) {
  cookieJar.clear();
  if (token) cookieJar.set(sessionCookieName(), token);
}
const token = () => cookieJar.get(sessionCookieName())?.value;

beforeEach(async () => {
  cookieJar.clear();
  await issueSession(cookieJar, await fresh());
});

describe("session tokens", () => {
  it("a freshly issued token identifies the user", async () => {
    expect((await currentUser(t.handle))?.id).toBe(user.id);
  });

  it("a missing, tampered or foreign token is treated as signed out", async () => {
    const good = token()!;
    presentToken(undefined);
    expect(await currentUser(t.handle)).toBeNull();
    presentToken(`${good.slice(0, -4)}AAAA`);
    expect(await currentUser(t.handle)).toBeNull();
    const prev = process.env.MICHI_AUTH_SECRET;
    (globalThis as { __michiEnv?: unknown }).__michiEnv = undefined;
    process.env.MICHI_AUTH_SECRET = "another-secret-of-at-least-32-characters!";
    const foreign = await encodeSession(await fresh());
    process.env.MICHI_AUTH_SECRET = prev;
    (globalThis as { __michiEnv?: unknown }).__michiEnv = undefined;
    presentToken(foreign);
    expect(await currentUser(t.handle)).toBeNull();
  });

  it("next-auth's jwt callback (OAuth sign-in) carries the same claims the guard checks", async () => {
    const jwt = authOptions().callbacks!.jwt!;
    const row = await fresh();
    const claims = await jwt({
      token: {},
      user: { id: "github-123", michi: row } as never,
      account: null,
      trigger: "signIn",
    } as never);
    expect(claims).toMatchObject({ uid: row.id, sv: row.sessionVersion, sub: row.id });
    // Without our user attached (e.g. a provider we did not match), no usable claims come out.
    expect(await jwt({ token: {}, user: { id: "x" } as never, account: null } as never)).toEqual({});
  });
});

describe("revocation", () => {
  const pwForm = (current: string, next: string) => {
    const fd = new FormData();
    fd.set("currentPassword", current);
    fd.set("newPassword", next);
    fd.set("confirmPassword", next);
    return fd;
  };

  it("changing the password rejects every older token and keeps this browser signed in", async () => {
    const old = token()!;
    const otherDevice = await encodeSession(await fresh());

    const wrong = await changePasswordAction(
      "sams-shop",
      {},
      pwForm("not my password", "a brand new password"),
    );
    expect(wrong).toMatchObject({
      ok: false,
      fieldErrors: { currentPassword: "Your current password is not right." },
    });
    expect(token()).toBe(old); // nothing changed

    const state = await changePasswordAction("sams-shop", {}, pwForm(TEST_PASSWORD, "a brand new password"));
    expect(state).toMatchObject({ ok: true });
    expect(JSON.stringify(state)).not.toContain("brand new");
    const renewed = token()!;
    expect(renewed).not.toBe(old);
    expect((await currentUser(t.handle))?.id).toBe(user.id);

    for (const stale of [old, otherDevice]) {
      presentToken(stale);
      expect(await currentUser(t.handle)).toBeNull();
      expect((await outcome(() => requireTenant("sams-shop"))).kind).toBe("redirect");
    }
  });

  it("throttles wrong current passwords like sign-in: the 11th attempt is refused even when right", async () => {
    // Start from a known password, whatever the tests before this one changed.
    await t.handle.platform
      .update(users)
      .set({ passwordHash: await hashPassword(TEST_PASSWORD) })
      .where(eq(users.id, user.id));
    const before = token()!;
    setRequestHeaders({ "x-michi-peer": "198.51.100.23" });
    const wrongAnswers = [];
    for (let i = 1; i <= 10; i++)
      wrongAnswers.push(
        await changePasswordAction("sams-shop", {}, pwForm(`guess ${i}`, "a brand new password")),
      );
    for (const r of wrongAnswers)
      expect(r).toMatchObject({ fieldErrors: { currentPassword: "Your current password is not right." } });

    const blocked = await changePasswordAction(
      "sams-shop",
      {},
      pwForm(TEST_PASSWORD, "another new password"),
    );
    expect(blocked).toMatchObject({ ok: false, message: "Too many attempts. Try again in 15 minutes." });
    expect(token()).toBe(before); // the password did not change, no session was re-issued
    expect(await verifyPassword((await fresh()).passwordHash, TEST_PASSWORD)).toBe(true);
    // The same pair is blocked at sign-in too: it is one throttle.
    expect(
      await authenticate(t.handle.platform, {
        email: user.email,
        password: TEST_PASSWORD,
        ip: "198.51.100.23",
      }),
    ).toMatchObject({ ok: false, reason: "throttled" });
  });

  it("sign out everywhere rejects every token, this browser's included", async () => {
    const before = token()!;
    const otherDevice = await encodeSession(await fresh());
    expect(await outcome(() => signOutEverywhereAction("sams-shop", {}, new FormData()))).toEqual({
      kind: "redirect",
      url: "/signin",
    });
    expect(token()).toBeUndefined();
    for (const stale of [before, otherDevice]) {
      presentToken(stale);
      expect(await currentUser(t.handle)).toBeNull();
    }
    // Signing in again gives a working session.
    await issueSession(cookieJar, await fresh());
    expect((await currentUser(t.handle))?.id).toBe(user.id);
  });
});

describe("GitHub sign-in", () => {
  const emails = (list: unknown) =>
    vi.fn(async () => new Response(JSON.stringify(list), { status: 200 })) as unknown as typeof fetch;

  async function signInWithGithub(fetchImpl: typeof fetch, profileEmail: string) {
    vi.stubGlobal("fetch", fetchImpl);
    try {
      const { callbacks } = authOptions();
      const user = { id: "gh-42", email: profileEmail, name: "Octo Cat" };
      const allowed = await callbacks!.signIn!({
        user,
        account: { provider: "github", type: "oauth", providerAccountId: "42", access_token: "gho_x" },
      } as never);
      const token =
        allowed === true ? await callbacks!.jwt!({ token: {}, user, account: null } as never) : null;
      return { allowed, token };
    } finally {
      vi.unstubAllGlobals();
    }
  }

  it("matches an existing account by its verified e-mail, whatever the profile says", async () => {
    const r = await signInWithGithub(
      emails([{ email: "SAM@shop.test", primary: true, verified: true }]),
      "unverified-alias@example.com",
    );
    expect(r.allowed).toBe(true);
    const row = await fresh();
    expect(r.token).toMatchObject({ uid: row.id, sv: row.sessionVersion });
  });

  it("refuses when GitHub has no verified address", async () => {
    const r = await signInWithGithub(
      emails([{ email: "sam@shop.test", primary: true, verified: false }]),
      "sam@shop.test",
    );
    expect(r.allowed).toBe("/signin?error=OAuthEmail");
  });

  it("creates an account only while sign-up is open", async () => {
    const newcomer = emails([{ email: "newcomer@gh.test", primary: true, verified: true }]);
    process.env.MICHI_ALLOW_SIGNUP = "false";
    (globalThis as { __michiEnv?: unknown }).__michiEnv = undefined;
    try {
      expect((await signInWithGithub(newcomer, "newcomer@gh.test")).allowed).toBe(
        "/signin?error=OAuthAccount",
      );
      expect(
        await t.handle.platform.select().from(users).where(eq(users.email, "newcomer@gh.test")),
      ).toHaveLength(0);
    } finally {
      process.env.MICHI_ALLOW_SIGNUP = "true";
      (globalThis as { __michiEnv?: unknown }).__michiEnv = undefined;
    }
    expect((await signInWithGithub(newcomer, "newcomer@gh.test")).allowed).toBe(true);
    const [created] = await t.handle.platform.select().from(users).where(eq(users.email, "newcomer@gh.test"));
    expect(created).toMatchObject({ name: "Octo Cat", passwordHash: null, isOperator: false });
  });
});
