import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { installTestDb } from "../support/admin-env";
import { actAs, outcome, runAs } from "../support/admin-mocks";
import { makeTenant, makeUser } from "../support/admin-world";
import type { TestDb } from "../support/db";

vi.mock("@/lib/auth/claims", () => import("../support/admin-mocks").then((m) => m.claimsModule));
vi.mock("next/headers", () => import("../support/admin-mocks").then((m) => m.headersModule));
vi.mock("next/cache", () => import("../support/admin-mocks").then((m) => m.cacheModule));

const team = await import("@/app/(admin)/admin/[tenant]/team/actions");
const { authenticate } = await import("@/lib/auth/credentials");
const { signInThrottle } = await import("@/lib/auth/throttle");
const { auditLog, memberships, tenants, users } = await import("@/lib/db/schema");

let t: TestDb;
type U = Awaited<ReturnType<typeof makeUser>>;
let owner: U;
let admin: U;
let existing: U;

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
const auditActions = async () =>
  (await t.handle.platform.select().from(auditLog).where(eq(auditLog.tenantId, tenantId))).map((a) => ({
    action: a.action,
    target: a.target,
    actor: a.actorLabel,
    details: a.details,
  }));
let tenantId: string;

beforeAll(async () => {
  t = await installTestDb();
  owner = await makeUser(t.handle, "olive@team.test");
  admin = await makeUser(t.handle, "adam@team.test");
  existing = await makeUser(t.handle, "erin@elsewhere.test");
  tenantId = (
    await makeTenant(t.handle, "team-shop", [
      [owner, "owner"],
      [admin, "admin"],
    ])
  ).id;
});
afterAll(() => t?.close());

describe("adding members", () => {
  it("creates an account with a one-time password shown once, which must be changed", async () => {
    actAs(owner);
    const state = await team.addMemberAction(
      "team-shop",
      {},
      fd({ email: "New.Person@Team.test", role: "viewer" }),
    );
    expect(state.ok).toBe(true);
    const otp = state.data?.oneTimePassword;
    expect(otp).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(JSON.stringify(state.values)).not.toContain(otp);
    const [created] = await t.handle.platform
      .select()
      .from(users)
      .where(eq(users.email, "new.person@team.test"));
    expect(created).toMatchObject({ mustChangePassword: true });
    expect(created!.passwordHash).not.toContain(otp!);
    expect(await roleOf(created!.id)).toBe("viewer");
    const signIn = await authenticate(
      t.handle.platform,
      { email: "new.person@team.test", password: otp!, ip: "192.0.2.1" },
      signInThrottle(),
    );
    expect(signIn.ok).toBe(true);
  });

  it("links an existing account with the same answer a new one gets, changing nothing of that account", async () => {
    actAs(owner);
    const before = (await t.handle.platform.select().from(users).where(eq(users.id, existing.id)))[0]!;
    const state = await team.addMemberAction(
      "team-shop",
      {},
      fd({ email: "erin@elsewhere.test", role: "admin" }),
    );
    const fresh = await team.addMemberAction(
      "team-shop",
      {},
      fd({ email: "fresh@team.test", role: "admin" }),
    );
    // One answer: the same words (the e-mail aside) and a one-time password of the same shape.
    const shape = (s: typeof state) => ({
      ok: s.ok,
      message: s.message?.replace(/\S+@\S+/, "EMAIL"),
      otp: /^[A-Za-z0-9]{20}$/.test(s.data?.oneTimePassword ?? ""),
    });
    expect(shape(state)).toEqual(shape(fresh));
    expect(shape(state)).toMatchObject({ ok: true, otp: true });
    expect(await roleOf(existing.id)).toBe("admin");
    // The shown password is no key to the existing account: its own password and hash are unchanged.
    const after = (await t.handle.platform.select().from(users).where(eq(users.id, existing.id)))[0]!;
    expect(after.passwordHash).toBe(before.passwordHash);
    const tried = await authenticate(
      t.handle.platform,
      { email: "erin@elsewhere.test", password: state.data!.oneTimePassword!, ip: "192.0.2.2" },
      signInThrottle(),
    );
    expect(tried).toEqual({ ok: false, reason: "invalid" });
  });

  it("refuses a duplicate and a bad e-mail with field messages, keeping what was typed", async () => {
    actAs(owner);
    expect(
      await team.addMemberAction("team-shop", {}, fd({ email: "erin@elsewhere.test", role: "viewer" })),
    ).toMatchObject({ ok: false, fieldErrors: { email: "erin@elsewhere.test is already a member." } });
    expect(await roleOf(existing.id)).toBe("admin");
    const bad = await team.addMemberAction("team-shop", {}, fd({ email: "not-an-email", role: "boss" }));
    expect(bad.fieldErrors).toEqual({ email: "Enter a valid e-mail address", role: "Choose a role" });
    expect(bad.values).toEqual({ email: "not-an-email", role: "boss" });
  });

  it("limits how many members one owner adds in an hour", async () => {
    const busy = await makeUser(t.handle, "busy@team.test");
    await makeTenant(t.handle, "busy-shop", [[busy, "owner"]]);
    actAs(busy);
    const answers = [];
    for (let i = 0; i < 21; i++)
      answers.push(
        await team.addMemberAction("busy-shop", {}, fd({ email: `probe-${i}@team.test`, role: "viewer" })),
      );
    expect(answers.slice(0, 20).every((a) => a.ok)).toBe(true);
    expect(answers[20]).toMatchObject({
      ok: false,
      message: expect.stringMatching(/many members in a short time/),
    });
    expect(
      await t.handle.platform.select().from(users).where(eq(users.email, "probe-20@team.test")),
    ).toHaveLength(0);
  });

  it("refuses admins: only owners manage the team", async () => {
    actAs(admin);
    const state = await team.addMemberAction(
      "team-shop",
      {},
      fd({ email: "sneaky@team.test", role: "owner" }),
    );
    expect(state).toMatchObject({ ok: false, message: expect.stringMatching(/Only an owner/) });
    expect(
      await t.handle.platform.select().from(users).where(eq(users.email, "sneaky@team.test")),
    ).toHaveLength(0);
    expect(
      await team.changeRoleAction("team-shop", {}, fd({ userId: admin.id, role: "owner" })),
    ).toMatchObject({ ok: false });
    expect(await roleOf(admin.id)).toBe("admin");
  });
});

describe("the last owner", () => {
  it("cannot be demoted or removed", async () => {
    actAs(owner);
    const demote = await team.changeRoleAction("team-shop", {}, fd({ userId: owner.id, role: "admin" }));
    expect(demote).toMatchObject({ ok: false, message: expect.stringMatching(/at least one owner/) });
    const remove = await team.removeMemberAction("team-shop", {}, fd({ userId: owner.id }));
    expect(remove).toMatchObject({ ok: false, message: expect.stringMatching(/at least one owner/) });
    expect(await roleOf(owner.id)).toBe("owner");
  });

  it("can step down once another owner exists", async () => {
    actAs(owner);
    expect(
      await team.changeRoleAction("team-shop", {}, fd({ userId: admin.id, role: "owner" })),
    ).toMatchObject({ ok: true });
    expect(
      await team.changeRoleAction("team-shop", {}, fd({ userId: owner.id, role: "admin" })),
    ).toMatchObject({ ok: true });
    expect(await roleOf(owner.id)).toBe("admin");
    // Back to the starting point for the next test: adam (owner) promotes olive again.
    actAs(admin);
    expect(
      await team.changeRoleAction("team-shop", {}, fd({ userId: owner.id, role: "owner" })),
    ).toMatchObject({ ok: true });
  });

  it("is kept when two owners demote each other at the same moment", async () => {
    // Both are owners now. Each demotes the other at once: the team lock lets exactly one through.
    const results = await Promise.all([
      runAs(owner, () => team.changeRoleAction("team-shop", {}, fd({ userId: admin.id, role: "viewer" }))),
      runAs(admin, () => team.changeRoleAction("team-shop", {}, fd({ userId: owner.id, role: "viewer" }))),
    ]);
    expect(results.map((r) => r.ok).sort()).toEqual([false, true]);
    expect(results.find((r) => !r.ok)?.message).toMatch(/at least one owner|Only an owner/);
    const roles = [await roleOf(owner.id), await roleOf(admin.id)];
    expect(roles.filter((r) => r === "owner")).toHaveLength(1);
  });
});

describe("removing members and deleting the business", () => {
  it("removes a member and writes who did it", async () => {
    const ownerNow = (await roleOf(owner.id)) === "owner" ? owner : admin;
    actAs(ownerNow);
    expect(await team.removeMemberAction("team-shop", {}, fd({ userId: existing.id }))).toMatchObject({
      ok: true,
    });
    expect(await roleOf(existing.id)).toBeNull();
    // The account itself stays: it may belong to other businesses.
    expect(await t.handle.platform.select().from(users).where(eq(users.id, existing.id))).toHaveLength(1);
  });

  it("has written an audit entry for every member change, without passwords", async () => {
    const log = await auditActions();
    expect(log.map((e) => e.action)).toEqual(
      expect.arrayContaining(["member.added", "member.role_changed", "member.removed"]),
    );
    expect(log.find((e) => e.action === "member.added" && e.target === "new.person@team.test")).toMatchObject(
      {
        actor: "olive@team.test",
        details: { role: "viewer" },
      },
    );
    expect(log.find((e) => e.action === "member.removed")).toMatchObject({ target: "erin@elsewhere.test" });
    expect(log.filter((e) => e.action === "member.role_changed").map((e) => e.details)).toContainEqual({
      from: "owner",
      to: "admin",
    });
  });

  it("deletes the business only when the owner types its address", async () => {
    const ownerNow = (await roleOf(owner.id)) === "owner" ? owner : admin;
    actAs(ownerNow);
    const wrong = await team.deleteTenantAction("team-shop", {}, fd({ confirm: "team-sho" }));
    expect(wrong).toMatchObject({ ok: false, fieldErrors: { confirm: "Type team-shop to confirm." } });
    expect(await t.handle.platform.select().from(tenants).where(eq(tenants.id, tenantId))).toHaveLength(1);
    expect(
      await outcome(() => team.deleteTenantAction("team-shop", {}, fd({ confirm: "team-shop" }))),
    ).toEqual({
      kind: "redirect",
      url: "/admin",
    });
    expect(await t.handle.platform.select().from(tenants).where(eq(tenants.id, tenantId))).toHaveLength(0);
    expect(
      await t.handle.platform.select().from(memberships).where(eq(memberships.tenantId, tenantId)),
    ).toHaveLength(0);
  });
});
