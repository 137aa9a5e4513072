import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { installTestDb } from "../support/admin-env";
import { cookieJar, outcome, setRequestHeaders } from "../support/admin-mocks";
import { makeUser, TEST_PASSWORD } from "../support/admin-world";
import type { TestDb } from "../support/db";
import {
  changes,
  confirmTokenIn,
  type HeldJob,
  holdJobs,
  runSignUpJobs,
  signUpMailsTo,
} from "../support/sign-up-jobs";
import { useSmtp } from "../support/smtp-server";

vi.mock("next/headers", () => import("../support/admin-mocks").then((m) => m.headersModule));
vi.mock("next/cache", () => import("../support/admin-mocks").then((m) => m.cacheModule));

const { signUpAction } = await import("@/app/signup/actions");
const { openSignUpLinkAction } = await import("@/app/signup/confirm/actions");
const { confirmSignUpAction } = await import("@/app/signup/confirm/form-actions");
const { readSignUpLink, SIGN_UP_LINK_HOURS } = await import("@/lib/accounts/pending-sign-up");
const { renderToStaticMarkup } = await import("react-dom/server");
const { decodeSession, sessionCookieName } = await import("@/lib/auth/session-cookie");
const { authenticate } = await import("@/lib/auth/credentials");
const { signInThrottle } = await import("@/lib/auth/throttle");
const { auditLog, memberships, pendingSignUps, tenants, users } = await import("@/lib/db/schema");
const { snapshotAll } = await import("./cross-tenant/harness");

let t: TestDb;
let held: ReturnType<typeof holdJobs>;
let jobs: HeldJob[];
beforeAll(async () => {
  t = await installTestDb();
  setRequestHeaders({ "x-michi-peer": "192.0.2.10" });
  held = holdJobs();
  jobs = held.jobs;
});
afterAll(async () => {
  held?.release();
  await t?.close();
});

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
  timeZone: "Europe/Madrid",
};
const userOf = async (email: string) =>
  (await t.handle.platform.select().from(users).where(eq(users.email, email)))[0] ?? null;
const confirm = (token: string, password: string) =>
  outcome(() => confirmSignUpAction({}, form({ token, password })));
/** The answer with its address taken out (and what was typed, echoed back): what must not differ. */
const words = (s: Awaited<ReturnType<typeof outcome>>) =>
  JSON.stringify(s.kind === "value" ? { ...(s.value as object), values: undefined } : s).replace(
    /[\w.+-]+@[\w.-]+/g,
    "EMAIL",
  );

describe("sign-up", () => {
  it("answers an address with an account exactly like a new one, and creates nothing but a pending row for either", async () => {
    await makeUser(t.handle, "taken@cafe.test", { name: "Tess" });
    const start = await snapshotAll(t.handle);
    const taken = await outcome(() =>
      signUpAction({}, form({ ...valid, email: "TAKEN@cafe.test", businessName: "Another" })),
    );
    const middle = await snapshotAll(t.handle);
    const fresh = await outcome(() =>
      signUpAction({}, form({ ...valid, email: "nobody-yet@cafe.test", businessName: "Third" })),
    );
    const end = await snapshotAll(t.handle);
    expect(taken).toMatchObject({ kind: "value", value: { ok: true } });
    expect(words(taken)).toEqual(words(fresh));
    expect(JSON.stringify(fresh)).toContain(
      "Check your inbox: we sent a link to nobody-yet@cafe.test to finish.",
    );
    // The same rows written for both, and none of them an account, a business or a membership.
    expect(changes(start, middle)).toEqual(changes(middle, end));
    expect(changes(start, middle)).toEqual({ pending_sign_ups: { added: 1, removed: 0 } });
    // No session either way, and one queued job each: the address is looked at after the answer.
    expect(cookieJar.get(sessionCookieName())).toBeUndefined();
    expect(jobs).toHaveLength(2);
    // The password is kept only as its scrypt hash.
    expect(JSON.stringify(end.pending_sign_ups)).not.toContain(valid.password);
    expect(JSON.stringify(end.pending_sign_ups)).toContain("scrypt$");
  });

  it("mails a known address that it has an account, with no link that creates anything, and forgets the request", async () => {
    const before = await userOf("taken@cafe.test");
    await runSignUpJobs(t.handle, jobs);
    const [mail] = await signUpMailsTo(t.handle, "taken@cafe.test");
    expect(mail).toMatchObject({ subject: "You already have a michi-chat account", status: "kept" });
    expect(mail!.bodyText).toContain("/signin/forgot");
    expect(mail!.bodyText).not.toMatch(/#[A-Za-z0-9_-]{43}/);
    expect(await userOf("taken@cafe.test")).toEqual(before);
    expect(await t.handle.platform.select().from(tenants).where(eq(tenants.name, "Another"))).toEqual([]);
    const left = await t.handle.platform.select().from(pendingSignUps);
    expect(left.map((r) => r.email)).toEqual(["nobody-yet@cafe.test"]);
  });

  it("creates the account and the business only when the mailed link is opened, then signs the person in", async () => {
    cookieJar.clear();
    expect(await userOf("nobody-yet@cafe.test")).toBeNull();
    const [mail] = await signUpMailsTo(t.handle, "nobody-yet@cafe.test");
    expect(mail!.subject).toBe("Confirm your e-mail address for michi-chat");
    const token = confirmTokenIn(mail!.bodyText);
    // Only a hash of the link is stored.
    const { mail_outbox: _kept, ...rest } = await snapshotAll(t.handle);
    expect(JSON.stringify(rest)).not.toContain(token.slice(0, 20));
    // The page, opened from the fragment, names the address and the business.
    const page = renderToStaticMarkup(await openSignUpLinkAction(null, form({ token })));
    expect(page).toContain("nobody-yet@cafe.test");
    expect(page).toContain("Third");
    expect(await confirm(token, valid.password)).toEqual({ kind: "redirect", url: "/admin/third" });
    const user = await userOf("nobody-yet@cafe.test");
    expect(user).toMatchObject({ name: "Mia", mustChangePassword: false });
    const [tenant] = await t.handle.platform.select().from(tenants).where(eq(tenants.slug, "third"));
    expect(tenant).toMatchObject({ name: "Third", status: "active", timeZone: "Europe/Madrid" });
    const [m] = await t.handle.platform
      .select()
      .from(memberships)
      .where(eq(memberships.tenantId, tenant!.id));
    expect(m).toMatchObject({ userId: user!.id, role: "owner" });
    const claims = await decodeSession(cookieJar.get(sessionCookieName())?.value);
    expect(claims).toMatchObject({ uid: user!.id, email: "nobody-yet@cafe.test" });
    const signIn = await authenticate(
      t.handle.platform,
      { email: "nobody-yet@cafe.test", password: valid.password, ip: "192.0.2.10" },
      signInThrottle(),
    );
    expect(signIn.ok).toBe(true);
    const log = await t.handle.platform.select().from(auditLog).where(eq(auditLog.tenantId, tenant!.id));
    expect(log.map((e) => [e.action, e.details])).toEqual([["tenant.created", { via: "sign-up" }]]);
    // Used up: the same link says so, and creates nothing a second time.
    expect(await confirm(token, valid.password)).toMatchObject({
      kind: "value",
      value: { ok: false, message: expect.stringMatching(/not valid any more/) },
    });
    expect(await readSignUpLink(t.handle, token)).toBeNull();
    expect(await t.handle.platform.select().from(tenants).where(eq(tenants.name, "Third"))).toHaveLength(1);
  });

  it("refuses an expired link, a wrong password, and an address that got an account meanwhile", async () => {
    const sent = async (email: string, businessName: string) => {
      await outcome(() => signUpAction({}, form({ ...valid, email, businessName })));
      await runSignUpJobs(t.handle, jobs);
      return confirmTokenIn((await signUpMailsTo(t.handle, email))[0]!.bodyText);
    };
    const late = await sent("late@cafe.test", "Late Shop");
    const later = new Date(Date.now() + (SIGN_UP_LINK_HOURS + 1) * 3_600_000);
    const { completeSignUp } = await import("@/lib/tenants/confirm-sign-up");
    await expect(
      completeSignUp(t.handle, { token: late, password: valid.password, ip: "192.0.2.11" }, later),
    ).rejects.toMatchObject({ code: "not_found", message: expect.stringMatching(/expired/) });

    const wrong = await sent("wrong@cafe.test", "Wrong Shop");
    expect(await confirm(wrong, "someone else's password")).toMatchObject({
      kind: "value",
      value: { ok: false, fieldErrors: { password: expect.stringMatching(/not the password chosen/) } },
    });
    expect(await userOf("wrong@cafe.test")).toBeNull();
    // A wrong password does not use the link up.
    expect(await readSignUpLink(t.handle, wrong)).toMatchObject({ email: "wrong@cafe.test" });

    const raced = await sent("raced@cafe.test", "Raced Shop");
    const meanwhile = await makeUser(t.handle, "raced@cafe.test");
    expect(await confirm(raced, valid.password)).toMatchObject({
      kind: "value",
      value: { ok: false, message: expect.stringMatching(/has a michi-chat account already/) },
    });
    expect(await userOf("raced@cafe.test")).toEqual(meanwhile);
    expect(await t.handle.platform.select().from(tenants).where(eq(tenants.name, "Raced Shop"))).toEqual([]);
    const stillTheirs = await authenticate(
      t.handle.platform,
      { email: "raced@cafe.test", password: TEST_PASSWORD, ip: "192.0.2.12" },
      signInThrottle(),
    );
    expect(stillTheirs.ok).toBe(true);
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

  it("says that an account needs mail when mail is off, the same for every address, and stores nothing", async () => {
    useSmtp(null, { outbox: false });
    try {
      const pendingBefore = await t.handle.platform.select().from(pendingSignUps);
      const known = await signUpAction({}, form({ ...valid, email: "taken@cafe.test" }));
      const fresh = await signUpAction({}, form({ ...valid, email: "offline@cafe.test" }));
      expect({ ...known, values: undefined }).toEqual({ ...fresh, values: undefined });
      expect(fresh).toMatchObject({ ok: false, message: expect.stringMatching(/sends no mail/) });
      expect(await t.handle.platform.select().from(pendingSignUps)).toEqual(pendingBefore);
    } finally {
      useSmtp(null);
    }
  });

  it("is refused when sign-up is closed", async () => {
    process.env.MICHI_ALLOW_SIGNUP = "false";
    (globalThis as { __michiEnv?: unknown }).__michiEnv = undefined;
    try {
      const state = await signUpAction({}, form({ ...valid, email: "closed@cafe.test" }));
      expect(state).toMatchObject({ ok: false, message: "Sign-up is closed on this installation." });
      const rows = await t.handle.platform.select().from(pendingSignUps);
      expect(rows.filter((r) => r.email === "closed@cafe.test")).toEqual([]);
    } finally {
      process.env.MICHI_ALLOW_SIGNUP = "true";
      (globalThis as { __michiEnv?: unknown }).__michiEnv = undefined;
    }
  });
});
