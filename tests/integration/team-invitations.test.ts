import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { installTestDb } from "../support/admin-env";
import { actAs, outcome, runAs, setRequestHeaders } from "../support/admin-mocks";
import { makeTenant, makeUser, TEST_PASSWORD } from "../support/admin-world";
import type { TestDb } from "../support/db";
import { startSmtpServer, type TestSmtpServer, useSmtp } from "../support/smtp-server";

vi.mock("@/lib/auth/claims", () => import("../support/admin-mocks").then((m) => m.claimsModule));
vi.mock("next/headers", () => import("../support/admin-mocks").then((m) => m.headersModule));
vi.mock("next/cache", () => import("../support/admin-mocks").then((m) => m.cacheModule));

const team = await import("@/app/(admin)/admin/[tenant]/team/actions");
const invite = { ...(await import("@/app/invite/actions")), ...(await import("@/app/invite/form-actions")) };
const { inviteMember, readInvitation } = await import("@/lib/team/invitations");
const { resolveTenantAccess } = await import("@/lib/auth/access");
const { authenticate } = await import("@/lib/auth/credentials");
const { signInThrottle } = await import("@/lib/auth/throttle");
const { listOutbox } = await import("@/lib/db/queries/outbox");
const { auditLog, invitations, memberships, users } = await import("@/lib/db/schema");
const { snapshotAll } = await import("./cross-tenant/harness");

let t: TestDb;
let smtp: TestSmtpServer;
type U = Awaited<ReturnType<typeof makeUser>>;
let owner: U;
let erin: U;
let tenantId: string;

const fd = (v: Record<string, string>) => {
  const f = new FormData();
  for (const [k, val] of Object.entries(v)) f.set(k, val);
  return f;
};
const roleOf = async (userId: string) =>
  (
    await t.handle.platform
      .select()
      .from(memberships)
      .where(and(eq(memberships.tenantId, tenantId), eq(memberships.userId, userId)))
  )[0]?.role ?? null;
const tokenOf = (link: string | undefined) => {
  const m = /\/invite#([A-Za-z0-9_-]{43})$/.exec(link ?? "");
  expect(m, `an invitation link: ${link}`).not.toBeNull();
  return m![1]!;
};
const inviteAs = async (who: U, email: string, role = "viewer") => {
  actAs(who);
  return team.inviteMemberAction("inv-shop", {}, fd({ email, role }));
};

beforeAll(async () => {
  t = await installTestDb();
  useSmtp(null);
  setRequestHeaders({ "x-michi-peer": "192.0.2.30" });
  owner = await makeUser(t.handle, "olive@inv.test", { name: "Olive" });
  erin = await makeUser(t.handle, "erin@elsewhere.test");
  tenantId = (await makeTenant(t.handle, "inv-shop", [[owner, "owner"]])).id;
  smtp = await startSmtpServer();
});
afterAll(async () => {
  useSmtp(null);
  await smtp?.close();
  await t?.close();
});

describe("inviting", () => {
  it("answers the same for an address with an account and one without, and creates neither account nor member", async () => {
    const known = await inviteAs(owner, "Erin@Elsewhere.test", "admin");
    const unknown = await inviteAs(owner, "nobody-yet@inv.test", "admin");
    const shape = (s: typeof known) => ({
      ok: s.ok,
      message: s.message?.replace(/\S+@\S+/g, "EMAIL"),
      link: /\/invite#[A-Za-z0-9_-]{43}$/.test(s.data?.link ?? ""),
    });
    expect(shape(known)).toEqual(shape(unknown));
    expect(shape(known)).toMatchObject({ ok: true, link: true });
    expect(known.message).toMatch(/operator's Outbox/);
    expect(await roleOf(erin.id)).toBeNull();
    expect(
      await t.handle.platform.select().from(users).where(eq(users.email, "nobody-yet@inv.test")),
    ).toEqual([]);
  });

  it("stores only a hash of the link, which appears in no table, and keeps the mail for the Outbox", async () => {
    const state = await inviteAs(owner, "hash-check@inv.test");
    const token = tokenOf(state.data?.link);
    const { mail_outbox: kept, ...rest } = await snapshotAll(t.handle);
    expect(JSON.stringify(rest)).not.toContain(token.slice(0, 20));
    expect(kept!.filter((row) => row.includes(token))).toHaveLength(1);
    const [mail] = await listOutbox(t.handle.platform, 1);
    expect(mail).toMatchObject({
      kind: "invitation",
      toAddress: "hash-check@inv.test",
      status: "kept",
      tenantId,
    });
    // The kept mail is where the link lives (the Outbox shows it); nothing else holds it.
    expect(mail!.bodyText).toContain(state.data!.link);
    expect(mail!.subject).toBe("Olive invited you to Business inv-shop on michi-chat");
  });

  it("mails the link through SMTP when it is configured", async () => {
    useSmtp(smtp.url);
    try {
      const state = await inviteAs(owner, "mailed@inv.test", "viewer");
      expect(state.message).toMatch(/^Invitation sent to mailed@inv\.test as viewer/);
      const [mail] = await smtp.waitFor(1);
      expect(mail!.envelope.to).toEqual(["mailed@inv.test"]);
      expect(mail!.subject).toBe("Olive invited you to Business inv-shop on michi-chat");
      expect(mail!.text).toContain(state.data!.link);
      expect(mail!.html).toContain(`href="${state.data!.link}"`);
      const [row] = await listOutbox(t.handle.platform, 1);
      expect(row).toMatchObject({ status: "sent", bodyText: null });
    } finally {
      useSmtp(null);
    }
  });

  it("refuses an address that is already a member, with a field message", async () => {
    const state = await inviteAs(owner, "OLIVE@inv.test");
    expect(state).toMatchObject({ ok: false, fieldErrors: { email: "olive@inv.test is already a member." } });
    expect(state.data).toBeUndefined();
  });

  it("limits how many invitations one owner sends in an hour", async () => {
    const busy = await makeUser(t.handle, "busy@inv.test");
    const busyTenant = await makeTenant(t.handle, "busy-inv", [[busy, "owner"]]);
    actAs(busy);
    const answers = [];
    for (let i = 0; i < 21; i++)
      answers.push(
        await team.inviteMemberAction("busy-inv", {}, fd({ email: `p${i}@inv.test`, role: "viewer" })),
      );
    expect(answers.slice(0, 20).every((a) => a.ok)).toBe(true);
    expect(answers[20]).toMatchObject({ ok: false, message: expect.stringMatching(/many invitations/) });
    const stored = await t.handle.platform
      .select()
      .from(invitations)
      .where(eq(invitations.tenantId, busyTenant.id));
    expect(stored).toHaveLength(20);
  });
});

describe("accepting", () => {
  it("asks a signed-out person to sign in first, and comes back to the link", async () => {
    const token = tokenOf((await inviteAs(owner, "later@inv.test")).data?.link);
    actAs(null);
    expect(await outcome(() => invite.acceptInvitationAction({}, fd({ token })))).toEqual({
      kind: "redirect",
      url: `/signin?callbackUrl=${encodeURIComponent("/invite")}`,
    });
  });

  it("adds the signed-in account with the invitation's role, once; the form cannot choose the role or business", async () => {
    const token = tokenOf((await inviteAs(owner, "erin@elsewhere.test", "admin")).data?.link);
    expect(await readInvitation(t.handle, token)).toMatchObject({
      state: "open",
      role: "admin",
      inviter: "Olive",
    });
    actAs(erin);
    const forged = fd({
      token,
      role: "owner",
      tenant: "busy-inv",
      tenantId: "00000000-0000-0000-0000-000000000000",
    });
    expect(await outcome(() => invite.acceptInvitationAction({}, forged))).toEqual({
      kind: "redirect",
      url: "/admin/inv-shop",
    });
    expect(await roleOf(erin.id)).toBe("admin");
    expect((await resolveTenantAccess("inv-shop", "admin")).kind).toBe("ok");
    const [entry] = await t.handle.platform
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.tenantId, tenantId), eq(auditLog.action, "member.added")));
    expect(entry).toMatchObject({ actorLabel: "erin@elsewhere.test", target: "erin@elsewhere.test" });
    expect(entry!.details).toMatchObject({ role: "admin", via: "invitation" });
    // Single use: the same link again, by anyone, changes nothing.
    const other = await makeUser(t.handle, "other@inv.test");
    actAs(other);
    expect(await invite.acceptInvitationAction({}, fd({ token }))).toMatchObject({
      ok: false,
      message: "This invitation has already been used.",
    });
    expect(await roleOf(other.id)).toBeNull();
    expect(await readInvitation(t.handle, token)).toMatchObject({ state: "accepted" });
  });

  it("lets only one of two people clicking the same link at the same moment in", async () => {
    const token = tokenOf((await inviteAs(owner, "race@inv.test")).data?.link);
    const a = await makeUser(t.handle, "race-a@inv.test");
    const b = await makeUser(t.handle, "race-b@inv.test");
    const results = await Promise.all(
      [a, b].map((u) => runAs(u, () => outcome(() => invite.acceptInvitationAction({}, fd({ token }))))),
    );
    expect(results.filter((r) => r.kind === "redirect")).toHaveLength(1);
    expect([await roleOf(a.id), await roleOf(b.id)].filter(Boolean)).toEqual(["viewer"]);
  });

  it("refuses an expired invitation and a revoked one", async () => {
    actAs(owner);
    const ctx = (await resolveTenantAccess("inv-shop", "owner")) as { kind: "ok"; ctx: never };
    const old = await inviteMember(
      ctx.ctx,
      { email: "old@inv.test", role: "viewer" },
      new Date(Date.now() - 8 * 86_400_000),
    );
    const oldToken = tokenOf(old.link);
    expect(await readInvitation(t.handle, oldToken)).toMatchObject({ state: "expired" });
    actAs(erin);
    expect(await invite.acceptInvitationAction({}, fd({ token: oldToken }))).toMatchObject({
      ok: false,
      message: expect.stringMatching(/expired/),
    });

    const state = await inviteAs(owner, "withdrawn@inv.test");
    const token = tokenOf(state.data?.link);
    actAs(owner);
    const [pending] = await t.handle.platform
      .select()
      .from(invitations)
      .where(eq(invitations.email, "withdrawn@inv.test"));
    expect(
      await team.revokeInvitationAction("inv-shop", {}, fd({ invitationId: pending!.id })),
    ).toMatchObject({ ok: true });
    const someone = await makeUser(t.handle, "someone@inv.test");
    actAs(someone);
    expect(await invite.acceptInvitationAction({}, fd({ token }))).toMatchObject({
      ok: false,
      message: expect.stringMatching(/withdrawn/),
    });
    expect(await roleOf(someone.id)).toBeNull();
    expect(await invite.acceptInvitationAction({}, fd({ token: "not-a-token" }))).toMatchObject({
      ok: false,
    });
  });
});

describe("creating an account from an invitation", () => {
  it("creates the invited address's account, accepts with the invitation's role and signs the person in, in one step", async () => {
    const token = tokenOf((await inviteAs(owner, "Newbie@Inv.test", "admin")).data?.link);
    actAs(null);
    const jar = (await import("next/headers")).cookies;
    const r = await outcome(() =>
      invite.inviteSignUpAction({}, fd({ token, name: "Nia", password: "a long new password" })),
    );
    expect(r).toEqual({ kind: "redirect", url: "/admin/inv-shop" });
    const [created] = await t.handle.platform.select().from(users).where(eq(users.email, "newbie@inv.test"));
    expect(created).toMatchObject({ name: "Nia", mustChangePassword: false });
    expect(await roleOf(created!.id)).toBe("admin");
    // Signed in: the session cookie was issued for the new account.
    const { decodeSession, sessionCookieName } = await import("@/lib/auth/session-cookie");
    const claims = await decodeSession((await jar()).get(sessionCookieName())?.value);
    expect(claims).toMatchObject({ uid: created!.id, email: "newbie@inv.test" });
    const signIn = await authenticate(
      t.handle.platform,
      { email: "newbie@inv.test", password: "a long new password", ip: "192.0.2.31" },
      signInThrottle(),
    );
    expect(signIn.ok).toBe(true);
    // The link is used up.
    expect((await readInvitation(t.handle, token)).state).toBe("accepted");
  });

  it("sends a person whose address already has an account to sign in, and changes nothing of it", async () => {
    const token = tokenOf((await inviteAs(owner, "busy@inv.test")).data?.link);
    const [before] = await t.handle.platform.select().from(users).where(eq(users.email, "busy@inv.test"));
    actAs(null);
    const r = await outcome(() =>
      invite.inviteSignUpAction({}, fd({ token, name: "Intruder", password: "an attacker password" })),
    );
    expect(r).toEqual({
      kind: "redirect",
      url: `/signin?signedUp=1&callbackUrl=${encodeURIComponent("/invite")}`,
    });
    const [after] = await t.handle.platform.select().from(users).where(eq(users.email, "busy@inv.test"));
    expect(after).toEqual(before);
    const tried = await authenticate(
      t.handle.platform,
      { email: "busy@inv.test", password: "an attacker password", ip: "192.0.2.32" },
      signInThrottle(),
    );
    expect(tried).toEqual({ ok: false, reason: "invalid" });
    expect(
      (
        await authenticate(
          t.handle.platform,
          { email: "busy@inv.test", password: TEST_PASSWORD, ip: "192.0.2.33" },
          signInThrottle(),
        )
      ).ok,
    ).toBe(true);
  });

  it("refuses a link that is not open", async () => {
    actAs(null);
    const r = await invite.inviteSignUpAction(
      {},
      fd({ token: "x".repeat(43), name: "N", password: "long enough pw" }),
    );
    expect(r).toMatchObject({ ok: false, message: expect.stringMatching(/not valid/) });
  });
});
