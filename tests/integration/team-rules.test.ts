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
      [existing, "viewer"],
    ])
  ).id;
});
afterAll(() => t?.close());

describe("who manages the team", () => {
  it("refuses admins: only owners invite and change roles", async () => {
    actAs(admin);
    const state = await team.inviteMemberAction(
      "team-shop",
      {},
      fd({ email: "sneaky@team.test", role: "owner" }),
    );
    expect(state).toMatchObject({ ok: false, message: expect.stringMatching(/Only an owner/) });
    expect(state.data).toBeUndefined();
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
      expect.arrayContaining(["member.role_changed", "member.removed"]),
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
