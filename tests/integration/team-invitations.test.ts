import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { installTestDb } from "../support/admin-env";
import { actAs, outcome, runAs, setRequestHeaders } from "../support/admin-mocks";
import { makeTenant, makeUser } from "../support/admin-world";
import type { TestDb } from "../support/db";
import {
  changes,
  confirmTokenIn,
  type HeldJob,
  holdJobs,
  runSignUpJobs,
  signUpMailsTo,
} from "../support/sign-up-jobs";
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
const { confirmSignUpAction } = await import("@/app/signup/confirm/form-actions");

let t: TestDb;
let smtp: TestSmtpServer;
type U = Awaited<ReturnType<typeof makeUser>>;
let owner: U;
let erin: U;
let tenantId: string;
let held: ReturnType<typeof holdJobs>;
let jobs: HeldJob[];

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
  held = holdJobs();
  jobs = held.jobs;
});
afterAll(async () => {
  held?.release();
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
  const create = (token: string, name: string, password: string) =>
    outcome(() => invite.inviteSignUpAction({}, fd({ token, name, password })));
  const confirm = (token: string, password: string) =>
    outcome(() => confirmSignUpAction({}, fd({ token, password })));
  const words = (r: Awaited<ReturnType<typeof create>>) =>
    JSON.stringify(r.kind === "value" ? { ...(r.value as object), values: undefined } : r).replace(
      /[\w.+-]+@[\w.-]+/g,
      "EMAIL",
    );

  it("answers 'check your inbox' for an invited address with an account and one without, and creates no account", async () => {
    const known = tokenOf((await inviteAs(owner, "busy@inv.test")).data?.link);
    const unknown = tokenOf((await inviteAs(owner, "fresh@inv.test")).data?.link);
    const [before] = await t.handle.platform.select().from(users).where(eq(users.email, "busy@inv.test"));
    expect(before).toBeDefined();
    actAs(null);
    const start = await snapshotAll(t.handle);
    const a = await create(known, "Intruder", "an attacker password");
    const middle = await snapshotAll(t.handle);
    const b = await create(unknown, "Fresh", "a fresh password 1");
    const end = await snapshotAll(t.handle);
    expect(words(a)).toEqual(words(b));
    expect(JSON.stringify(b)).toContain("Check your inbox: we sent a link to fresh@inv.test to finish");
    expect(changes(start, middle)).toEqual(changes(middle, end));
    expect(changes(start, middle)).toEqual({ pending_sign_ups: { added: 1, removed: 0 } });
    // The job looks at the address: the account's owner hears that they can sign in and accept.
    await runSignUpJobs(t.handle, jobs);
    const [told] = await signUpMailsTo(t.handle, "busy@inv.test");
    expect(told!.subject).toBe("You already have a michi-chat account");
    expect(told!.bodyText).toMatch(/sign in with\s+your account and accept/);
    expect(told!.bodyText).not.toMatch(/#[A-Za-z0-9_-]{43}/);
    const [after] = await t.handle.platform.select().from(users).where(eq(users.email, "busy@inv.test"));
    expect(after).toEqual(before);
    const tried = await authenticate(
      t.handle.platform,
      { email: "busy@inv.test", password: "an attacker password", ip: "192.0.2.32" },
      signInThrottle(),
    );
    expect(tried).toEqual({ ok: false, reason: "invalid" });
    expect((await readInvitation(t.handle, known)).state).toBe("open");
  });

  it("keeps the owner who holds the link from creating the invitee's account", async () => {
    // The owner saw the link when inviting, and uses it signed out with a password of their choosing.
    const token = tokenOf((await inviteAs(owner, "Target@Inv.test", "admin")).data?.link);
    actAs(null);
    const answer = await create(token, "Target", "the owner's own password");
    expect(answer).toMatchObject({ kind: "value", value: { ok: true } });
    expect(JSON.stringify(answer)).not.toMatch(/signup\/confirm/);
    expect(await t.handle.platform.select().from(users).where(eq(users.email, "target@inv.test"))).toEqual(
      [],
    );
    await runSignUpJobs(t.handle, jobs);
    // The link that finishes went only to the invited address, which the owner cannot read.
    const mails = (await listOutbox(t.handle.platform, 500)).filter((m) => m.kind === "sign_up");
    const planted = confirmTokenIn((await signUpMailsTo(t.handle, "target@inv.test"))[0]!.bodyText);
    expect(mails.filter((m) => m.bodyText?.includes(planted)).map((m) => m.toAddress)).toEqual([
      "target@inv.test",
    ]);
    // Should the invitee open it, it asks for the password chosen with it, which only the owner knows.
    expect(await confirm(planted, "the invitee's own password")).toMatchObject({
      kind: "value",
      value: { ok: false, fieldErrors: { password: expect.stringMatching(/not the password chosen/) } },
    });
    expect(await t.handle.platform.select().from(users).where(eq(users.email, "target@inv.test"))).toEqual(
      [],
    );

    // The invitee makes their own, with their own password, and lands in the business signed in.
    const jar = (await import("next/headers")).cookies;
    expect(await create(token, "Tara", "the invitee's own password")).toMatchObject({ value: { ok: true } });
    await runSignUpJobs(t.handle, jobs);
    const theirs = confirmTokenIn((await signUpMailsTo(t.handle, "target@inv.test"))[0]!.bodyText);
    expect(theirs).not.toBe(planted);
    expect(await confirm(theirs, "the invitee's own password")).toEqual({
      kind: "redirect",
      url: "/admin/inv-shop",
    });
    const [created] = await t.handle.platform.select().from(users).where(eq(users.email, "target@inv.test"));
    expect(created).toMatchObject({ name: "Tara", mustChangePassword: false });
    expect(await roleOf(created!.id)).toBe("admin");
    const { decodeSession, sessionCookieName } = await import("@/lib/auth/session-cookie");
    const claims = await decodeSession((await jar()).get(sessionCookieName())?.value);
    expect(claims).toMatchObject({ uid: created!.id, email: "target@inv.test" });
    const signIn = (password: string, ip: string) =>
      authenticate(t.handle.platform, { email: "target@inv.test", password, ip }, signInThrottle());
    expect((await signIn("the invitee's own password", "192.0.2.34")).ok).toBe(true);
    expect((await signIn("the owner's own password", "192.0.2.35")).ok).toBe(false);
    expect((await readInvitation(t.handle, token)).state).toBe("accepted");
    // The owner's planted sign-up is dead: nothing is created twice.
    expect(await confirm(planted, "the owner's own password")).toMatchObject({
      kind: "value",
      value: { ok: false, message: expect.stringMatching(/has a michi-chat account already/) },
    });
    expect(
      await t.handle.platform.select().from(users).where(eq(users.email, "target@inv.test")),
    ).toHaveLength(1);
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
