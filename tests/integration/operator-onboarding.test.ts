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
const { invitations, memberships, tenants, users } = await import("@/lib/db/schema");

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
