import { eq } from "drizzle-orm";
import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { installTestDb } from "../support/admin-env";
import { actAs } from "../support/admin-mocks";
import { makeTenant, makeUser } from "../support/admin-world";
import type { TestDb } from "../support/db";

vi.mock("@/lib/auth/claims", () => import("../support/admin-mocks").then((m) => m.claimsModule));
vi.mock("next/headers", () => import("../support/admin-mocks").then((m) => m.headersModule));
vi.mock("next/cache", () => import("../support/admin-mocks").then((m) => m.cacheModule));

const { audit, listAudit } = await import("@/lib/db/queries/audit");
const operator = await import("@/app/(admin)/admin/operator/actions");
const account = await import("@/app/(admin)/admin/[tenant]/account/actions");
const { auditLog, tenants, users } = await import("@/lib/db/schema");

let t: TestDb;
type U = Awaited<ReturnType<typeof makeUser>>;
let op: U;
let owner: U;
let a: { id: string };
let b: { id: string };

const fd = (v: Record<string, string>) => {
  const f = new FormData();
  for (const [k, val] of Object.entries(v)) f.set(k, val);
  return f;
};
const entriesOf = (tenantId: string) =>
  t.handle.forTenant(tenantId, (tx) => listAudit(tx, { limit: 200 })).then((p) => p.entries);

beforeAll(async () => {
  t = await installTestDb();
  op = await makeUser(t.handle, "op@platform.test", { isOperator: true });
  owner = await makeUser(t.handle, "owner@audit.test");
  a = await makeTenant(t.handle, "audit-a", [[owner, "owner"]]);
  b = await makeTenant(t.handle, "audit-b", [[owner, "owner"]]);
});
afterAll(() => t?.close());

describe("audit pages", () => {
  it("lists newest first and pages with a cursor, without gaps or repeats even within one instant", async () => {
    const same = new Date("2020-03-03T03:03:03.123Z"); // in the past: later tests add entries "now"
    await t.handle.forTenant(a.id, async (tx) => {
      for (let i = 1; i <= 7; i++)
        await tx.insert(auditLog).values({
          tenantId: a.id,
          action: `test.${i}`,
          // Five entries share one instant: ordering then falls back to the id.
          createdAt: i <= 5 ? same : new Date(same.getTime() + i * 1000),
        });
    });
    const seen: string[] = [];
    let before: string | null = null;
    let pages = 0;
    do {
      const page = await t.handle.forTenant(a.id, (tx) => listAudit(tx, { before, limit: 3 }));
      seen.push(...page.entries.map((e) => e.action));
      before = page.nextCursor;
      pages++;
    } while (before && pages < 10);
    expect(pages).toBe(3);
    expect(seen.slice(0, 2)).toEqual(["test.7", "test.6"]);
    expect(new Set(seen).size).toBe(7);
    expect(seen.filter((s) => s.startsWith("test.")).sort()).toEqual(
      [1, 2, 3, 4, 5, 6, 7].map((i) => `test.${i}`),
    );
  });

  it("a cursor taken from another tenant's log shows nothing of either", async () => {
    await t.handle.forTenant(b.id, (tx) =>
      audit(tx, { tenantId: b.id, actor: null, action: "b.secret-thing" }),
    );
    const [bEntry] = await t.handle
      .forTenant(b.id, (tx) => listAudit(tx, { limit: 1 }))
      .then((p) => p.entries);
    const page = await t.handle.forTenant(a.id, (tx) => listAudit(tx, { before: bEntry!.id }));
    expect(page.entries).toEqual([]);
  });

  it("stores the actor's e-mail, or 'system' without one", async () => {
    await t.handle.forTenant(a.id, (tx) =>
      audit(tx, {
        tenantId: a.id,
        actor: { id: owner.id, email: owner.email },
        action: "x.by-owner",
        target: "t",
      }),
    );
    const [latest] = await entriesOf(a.id);
    expect(latest).toMatchObject({
      action: "x.by-owner",
      actorLabel: "owner@audit.test",
      actorUserId: owner.id,
    });
    const [bLatest] = await entriesOf(b.id);
    expect(bLatest).toMatchObject({ action: "b.secret-thing", actorLabel: "system", actorUserId: null });
  });
});

describe("operator changes are written to the affected tenant's log", () => {
  it("suspend, resume, and budget/limit changes", async () => {
    actAs(op);
    expect(await operator.setStatusAction({}, fd({ tenantId: a.id, status: "suspended" }))).toMatchObject({
      ok: true,
    });
    expect(await operator.setStatusAction({}, fd({ tenantId: a.id, status: "active" }))).toMatchObject({
      ok: true,
    });
    const limits = await operator.setLimitsAction(
      {},
      fd({
        tenantId: a.id,
        monthlyTokenBudget: "5000",
        visitorPerMin: "7",
        ipPerMin: "",
        tenantPerMin: "",
        maxStreams: "",
      }),
    );
    expect(limits).toMatchObject({ ok: true });
    const [row] = await t.handle.platform.select().from(tenants).where(eq(tenants.id, a.id));
    expect(row).toMatchObject({
      status: "active",
      monthlyTokenBudget: 5000,
      rateLimits: { visitorPerMin: 7 },
    });

    const log = (await entriesOf(a.id)).slice(0, 3);
    expect(log.map((e) => e.action)).toEqual(["tenant.limits_changed", "tenant.resumed", "tenant.suspended"]);
    expect(log.every((e) => e.actorLabel === "op@platform.test")).toBe(true);
    expect(log[0]!.details).toEqual({ monthlyTokenBudget: 5000, rateLimits: { visitorPerMin: 7 } });
    expect((await entriesOf(b.id)).map((e) => e.action)).not.toContain("tenant.suspended");
  });

  it("refuses bad numbers with field messages and changes nothing", async () => {
    actAs(op);
    const state = await operator.setLimitsAction(
      {},
      fd({ tenantId: a.id, monthlyTokenBudget: "-3", visitorPerMin: "1.5" }),
    );
    expect(state.fieldErrors).toMatchObject({
      monthlyTokenBudget: expect.stringMatching(/whole number/),
      visitorPerMin: expect.stringMatching(/whole number/),
    });
    expect(state.values).toMatchObject({ monthlyTokenBudget: "-3", visitorPerMin: "1.5" });
    const [row] = await t.handle.platform.select().from(tenants).where(eq(tenants.id, a.id));
    expect(row!.monthlyTokenBudget).toBe(5000);
  });

  it("creating a business logs it there, and tenant members cannot use operator actions", async () => {
    actAs(op);
    const created = await operator.createTenantAction(
      {},
      fd({ name: "New Bakery", slug: "new-bakery", ownerEmail: "baker@bakery.test" }),
    );
    expect(created).toMatchObject({ ok: true });
    const [bakery] = await t.handle.platform.select().from(tenants).where(eq(tenants.slug, "new-bakery"));
    // With mail on (the Outbox here) the new owner is invited: both are in the business's log.
    expect((await entriesOf(bakery!.id)).map((e) => e.action).sort()).toEqual([
      "invitation.created",
      "tenant.created",
    ]);
    expect((await entriesOf(bakery!.id)).find((e) => e.action === "tenant.created")).toMatchObject({
      actorLabel: "op@platform.test",
      details: { owner: "baker@bakery.test", invited: true, by: "operator" },
    });
    const taken = await operator.createTenantAction(
      {},
      fd({ name: "Again", slug: "new-bakery", ownerEmail: "x@y.test" }),
    );
    expect(taken).toMatchObject({ ok: false, fieldErrors: { slug: expect.stringMatching(/already uses/) } });
    expect(await t.handle.platform.select().from(users).where(eq(users.email, "x@y.test"))).toHaveLength(0);

    actAs(owner);
    expect(await operator.setStatusAction({}, fd({ tenantId: a.id, status: "suspended" }))).toMatchObject({
      ok: false,
      message: "Only the platform operator can do that.",
    });
    const [row] = await t.handle.platform.select().from(tenants).where(eq(tenants.id, a.id));
    expect(row!.status).toBe("active");
  });
});

describe("account changes are the user's own", () => {
  it("a name change writes the user row only", async () => {
    actAs(owner);
    expect(await account.updateNameAction("audit-a", {}, fd({ name: "  Owen Owner " }))).toMatchObject({
      ok: true,
    });
    const [row] = await t.handle.platform.select().from(users).where(eq(users.id, owner.id));
    expect(row!.name).toBe("Owen Owner");
  });
});

describe("the audit log page reads in words", () => {
  it("names members instead of ids, says yes/no, shows times in the business's zone and wraps targets at words", async () => {
    const boss = await makeUser(t.handle, "boss@words.test", { name: "Bea Boss" });
    const mate = await makeUser(t.handle, "mate@words.test", { name: "" });
    const gone = "0f0e0d0c-0b0a-4987-8654-321012345678"; // someone no longer on the team
    const w = await makeTenant(t.handle, "audit-words", [
      [boss, "owner"],
      [mate, "viewer"],
    ]);
    await t.handle.platform.update(tenants).set({ timeZone: "Asia/Tokyo" }).where(eq(tenants.id, w.id));
    const longEmail = "someone.with.a.rather.long.address@an-example-business.test";
    await t.handle.forTenant(w.id, async (tx) => {
      const actor = { id: boss.id, email: boss.email };
      await audit(tx, {
        tenantId: w.id,
        actor,
        action: "invitation.created",
        target: longEmail,
        details: { role: "admin", expiresAt: "2026-03-01T23:30:00.000Z" },
      });
      await audit(tx, {
        tenantId: w.id,
        actor,
        action: "live.transferred",
        target: "5a5b5c5d-5e5f-4a60-8162-636465666768",
        details: { to: mate.id, from: gone, by: "round-robin" },
      });
      await audit(tx, {
        tenantId: w.id,
        actor,
        action: "live.settings_changed",
        details: { maxPerAgent: 3, hours: true },
      });
      await audit(tx, {
        tenantId: w.id,
        actor,
        action: "visitor_identity.required_changed",
        details: { required: false },
      });
    });
    actAs(boss);
    const { default: AuditPage } = await import("@/app/(admin)/admin/[tenant]/audit/page");
    const html = renderToStaticMarkup(
      await AuditPage({
        params: Promise.resolve({ tenant: "audit-words" }),
        searchParams: Promise.resolve({}),
      }),
    );
    const detail = (label: string, text: string) =>
      new RegExp(`<dt[^>]*>${label}:</dt><dd[^>]*>${text}</dd>`).test(html);
    expect(detail("role", "admin")).toBe(true);
    // 23:30 UTC on 1 March is 08:30 on 2 March in Tokyo.
    expect(html).toMatch(/<dt[^>]*>expires:<\/dt><dd[^>]*>2 Mar 2026, 08:30[^<]*<\/dd>/);
    expect(html).not.toContain("2026-03-01T23:30");
    // A member by name, or by e-mail without one; a former member by a short reference, never a whole id.
    expect(detail("to", "mate@words.test")).toBe(true);
    expect(detail("from", "#0f0e0d0c")).toBe(true);
    expect(html).not.toContain(mate.id);
    expect(html).not.toContain(gone);
    expect(detail("opening hours set", "yes")).toBe(true);
    expect(detail("chats per person", "3")).toBe(true);
    expect(detail("verified visitors required", "no")).toBe(true);
    expect(html).not.toMatch(/>(maxPerAgent|expiresAt|required)</);
    // The Target column wraps between words, not inside them.
    expect(html).toMatch(new RegExp(`<td class="[^"]*break-words[^"]*">${longEmail}</td>`));
    expect(html).not.toContain("break-all");
  });
});
