import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { installTestDb } from "../support/admin-env";
import { actAs } from "../support/admin-mocks";
import { makeUser } from "../support/admin-world";
import type { TestDb } from "../support/db";
import { startSmtpServer, type TestSmtpServer, useSmtp } from "../support/smtp-server";

vi.mock("@/lib/auth/claims", () => import("../support/admin-mocks").then((m) => m.claimsModule));
vi.mock("next/headers", () => import("../support/admin-mocks").then((m) => m.headersModule));
vi.mock("next/cache", () => import("../support/admin-mocks").then((m) => m.cacheModule));

// Issue 30 item 6: the operator creates a business for an owner. With mail on, a person without an account is
// e-mailed an invitation (no password exists anywhere); with mail off, a one-time password is the fallback.

const operator = await import("@/app/(admin)/admin/operator/actions");
const { readInvitation } = await import("@/lib/team/invitations");
const { auditLog, invitations, memberships, tenants, users } = await import("@/lib/db/schema");
const { listTenantsOverview } = await import("@/lib/db/queries/operator");
const { operatorTeamView } = await import("@/lib/tenants/operator-team");

let t: TestDb;
let smtp: TestSmtpServer;
let op: Awaited<ReturnType<typeof makeUser>>;

const fd = (v: Record<string, string>) => {
  const f = new FormData();
  for (const [k, val] of Object.entries(v)) f.set(k, val);
  return f;
};
const tenantBySlug = async (slug: string) =>
  (await t.handle.platform.select().from(tenants).where(eq(tenants.slug, slug)))[0];
const userByEmail = async (email: string) =>
  (await t.handle.platform.select().from(users).where(eq(users.email, email)))[0];

beforeAll(async () => {
  t = await installTestDb();
  op = await makeUser(t.handle, "op@onboard.test", { isOperator: true, name: "Opal Operator" });
  smtp = await startSmtpServer();
});
afterAll(async () => {
  useSmtp(null);
  await smtp?.close();
  await t?.close();
});

describe("creating a business for an owner", () => {
  it("mails a new owner an invitation to own it, and creates no account or password", async () => {
    useSmtp(smtp.url);
    actAs(op);
    const r = await operator.createTenantAction(
      {},
      fd({ name: "Rosa's Flowers", slug: "", ownerEmail: "rosa@flowers.test" }),
    );
    expect(r).toMatchObject({ ok: true, message: expect.stringContaining("e-mailed to rosa@flowers.test") });
    expect(r.data).toBeUndefined();
    // The slug was derived from the name, as sign-up derives it.
    const shop = await tenantBySlug("rosa-s-flowers");
    expect(shop).toBeTruthy();
    expect(await userByEmail("rosa@flowers.test")).toBeUndefined();
    const [inv] = await t.handle.platform
      .select()
      .from(invitations)
      .where(eq(invitations.tenantId, shop!.id));
    expect(inv).toMatchObject({ email: "rosa@flowers.test", role: "owner", invitedBy: op.id });

    const [mail] = await smtp.waitFor(1);
    expect(mail!.envelope.to).toEqual(["rosa@flowers.test"]);
    const token = /\/invite#([A-Za-z0-9_-]{43})/.exec(mail!.text ?? "")?.[1];
    expect(token).toBeTruthy();
    expect(await readInvitation(t.handle, token!)).toMatchObject({
      state: "open",
      business: "Rosa's Flowers",
      role: "owner",
      inviter: "Opal Operator",
    });
  });

  it("gives the derived address a free number when it is taken, and keeps a typed one as it is", async () => {
    useSmtp(smtp.url);
    actAs(op);
    await operator.createTenantAction(
      {},
      fd({ name: "Rosa's Flowers", slug: "rosa-s-flowers", ownerEmail: "rosa2@flowers.test" }),
    );
    expect(await tenantBySlug("rosa-s-flowers-2")).toBeTruthy();
    const typed = await operator.createTenantAction(
      {},
      fd({ name: "Another name", slug: "rosa-s-flowers", ownerEmail: "rosa3@flowers.test" }),
    );
    expect(typed).toMatchObject({ ok: false, fieldErrors: { slug: expect.stringMatching(/already uses/) } });
  });

  it("makes an existing account the owner at once, without an invitation", async () => {
    useSmtp(smtp.url);
    const known = await makeUser(t.handle, "known@flowers.test");
    actAs(op);
    const r = await operator.createTenantAction(
      {},
      fd({ name: "Known Shop", slug: "known-shop", ownerEmail: "known@flowers.test" }),
    );
    expect(r).toMatchObject({
      ok: true,
      message: expect.stringContaining("existing account was made its owner"),
    });
    const shop = await tenantBySlug("known-shop");
    const [m] = await t.handle.platform
      .select()
      .from(memberships)
      .where(and(eq(memberships.tenantId, shop!.id), eq(memberships.userId, known.id)));
    expect(m?.role).toBe("owner");
    expect(
      await t.handle.platform.select().from(invitations).where(eq(invitations.tenantId, shop!.id)),
    ).toEqual([]);
  });

  it("falls back to a one-time password when mail is off", async () => {
    useSmtp(null, { outbox: false });
    actAs(op);
    const r = await operator.createTenantAction(
      {},
      fd({ name: "Offline Shop", slug: "offline-shop", ownerEmail: "offline@flowers.test" }),
    );
    expect(r).toMatchObject({
      ok: true,
      message: expect.stringContaining("Mail is off"),
      data: { email: "offline@flowers.test", oneTimePassword: expect.any(String) },
    });
    expect(await userByEmail("offline@flowers.test")).toMatchObject({ mustChangePassword: true });
    const shop = await tenantBySlug("offline-shop");
    expect(
      await t.handle.platform.select().from(invitations).where(eq(invitations.tenantId, shop!.id)),
    ).toEqual([]);
  });
});

describe("an invited owner who has not answered (issue 45 item 11)", () => {
  const tokenOf = (text: string | undefined) => /\/invite#([A-Za-z0-9_-]{43})/.exec(text ?? "")?.[1];

  it("counts as invited, not as a member, and can be sent a new link that replaces the old one", async () => {
    useSmtp(smtp.url);
    actAs(op);
    const before = smtp.received.length;
    await operator.createTenantAction(
      {},
      fd({ name: "Lupe's Bakery", slug: "", ownerEmail: "lupe@bakery.test" }),
    );
    const shop = await tenantBySlug("lupe-s-bakery");
    const row = (await listTenantsOverview(t.handle.platform)).find((x) => x.id === shop!.id);
    expect(row).toMatchObject({ members: 0, invited: 1 });
    const [first] = (await smtp.waitFor(before + 1)).slice(before);
    const oldToken = tokenOf(first!.text);

    const view = await operatorTeamView({ db: t.handle, user: op }, shop!.id);
    expect(view.members).toEqual([]);
    expect(view.invitations).toEqual([
      expect.objectContaining({ email: "lupe@bakery.test", role: "owner", expired: false }),
    ]);

    const r = await operator.resendInvitationAction(
      {},
      fd({ tenantId: shop!.id, invitationId: view.invitations[0]!.id }),
    );
    expect(r).toMatchObject({ ok: true, message: expect.stringContaining("e-mailed to lupe@bakery.test") });
    const [second] = (await smtp.waitFor(before + 2)).slice(before + 1);
    expect(second!.envelope.to).toEqual(["lupe@bakery.test"]);
    const newToken = tokenOf(second!.text);
    expect(newToken).toBeTruthy();
    expect(newToken).not.toBe(oldToken);
    expect(await readInvitation(t.handle, oldToken!)).toMatchObject({ state: "revoked" });
    expect(await readInvitation(t.handle, newToken!)).toMatchObject({ state: "open", role: "owner" });
    const entries = await t.handle.platform.select().from(auditLog).where(eq(auditLog.tenantId, shop!.id));
    expect(entries.map((e) => e.action)).toContain("invitation.resent");
  });

  it("offers a new link for an expired invitation too, and refuses one already answered", async () => {
    useSmtp(smtp.url);
    actAs(op);
    await operator.createTenantAction(
      {},
      fd({ name: "Late Owner", slug: "late-owner", ownerEmail: "late@bakery.test" }),
    );
    const shop = await tenantBySlug("late-owner");
    await t.handle.platform
      .update(invitations)
      .set({ expiresAt: new Date(Date.now() - 60_000) })
      .where(eq(invitations.tenantId, shop!.id));
    expect((await listTenantsOverview(t.handle.platform)).find((x) => x.id === shop!.id)).toMatchObject({
      members: 0,
      invited: 0,
    });
    const [expired] = (await operatorTeamView({ db: t.handle, user: op }, shop!.id)).invitations;
    expect(expired).toMatchObject({ email: "late@bakery.test", expired: true });
    const ok = await operator.resendInvitationAction(
      {},
      fd({ tenantId: shop!.id, invitationId: expired!.id }),
    );
    expect(ok).toMatchObject({ ok: true });
    const again = await operator.resendInvitationAction(
      {},
      fd({ tenantId: shop!.id, invitationId: expired!.id }),
    );
    expect(again).toMatchObject({
      ok: false,
      message: expect.stringContaining("already accepted or revoked"),
    });
  });
});
