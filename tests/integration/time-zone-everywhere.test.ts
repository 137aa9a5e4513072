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
vi.mock("next/server", async (importOriginal) => ({
  ...(await importOriginal<typeof import("next/server")>()),
  connection: async () => {},
}));

// Issue 45 item 3: one date format everywhere, in the business's zone: no header says "times in UTC" or
// "When (UTC)", the Outbox, the webhook log and the budget's reset read in the business's zone; a business
// the operator created starts in UTC and its first admin is offered another zone until one is chosen.

const { tenants, mailOutbox, auditLog } = await import("@/lib/db/schema");
const { formatDateTime } = await import("@/shared/dates");

let t: TestDb;
let owner: Awaited<ReturnType<typeof makeUser>>;
let op: Awaited<ReturnType<typeof makeUser>>;
let tokyo: { id: string };

const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x27;/g, "'")
    .replace(/\s+/g, " ");
const fd = (v: Record<string, string>) => {
  const f = new FormData();
  for (const [k, val] of Object.entries(v)) f.set(k, val);
  return f;
};

beforeAll(async () => {
  t = await installTestDb();
  owner = await makeUser(t.handle, "owner@tz-all.test");
  op = await makeUser(t.handle, "op@tz-all.test", { isOperator: true });
  tokyo = await makeTenant(t.handle, "tz-tokyo", [[owner, "owner"]]);
  await t.handle.platform
    .update(tenants)
    .set({ timeZone: "Asia/Tokyo", timeZoneChosenAt: new Date() })
    .where(eq(tenants.id, tokyo.id));
  await t.handle.platform.insert(auditLog).values({
    tenantId: tokyo.id,
    actorUserId: owner.id,
    action: "tenant.retention_changed",
    target: "retention",
    createdAt: new Date("2026-12-06T03:04:05Z"),
  });
  await t.handle.platform.insert(mailOutbox).values({
    tenantId: tokyo.id,
    kind: "lead",
    toAddress: "owner@tz-all.test",
    subject: "A mail of Tokyo",
    bodyText: "hello",
    status: "sent",
    createdAt: new Date("2026-12-06T03:04:05Z"),
  });
});
afterAll(() => t?.close());

async function page(path: string, params: Record<string, string>, sp: Record<string, string> = {}) {
  const { default: Page } = await import(`@/app/(admin)/admin/${path}/page`);
  return text(
    renderToStaticMarkup(await Page({ params: Promise.resolve(params), searchParams: Promise.resolve(sp) })),
  );
}

describe("dates in the business's zone", () => {
  it("no list says its times are in UTC; the audit log reads in the business's zone", async () => {
    actAs(owner);
    const audit = await page("[tenant]/audit", { tenant: "tz-tokyo" });
    expect(audit).not.toContain("UTC");
    expect(audit).toContain("6 Dec 2026, 12:04:05 GMT+9");
    for (const p of ["[tenant]/conversations", "[tenant]/inbox"]) {
      const shown = await page(p, { tenant: "tz-tokyo" });
      expect(shown).not.toContain("times in UTC");
      expect(shown).toContain("times in Asia/Tokyo");
    }
  });

  it("the operator's Outbox shows each mail's time in its business's zone, in the one format", async () => {
    actAs(op);
    const outbox = await page("operator/outbox", {});
    expect(outbox).toContain("6 Dec 2026, 12:04 GMT+9");
    expect(outbox).not.toContain("2026-12-06 03:04 UTC");
  });

  it("the webhook log's deliveries are in the one format and zone", async () => {
    const { DeliveriesCard } = await import("@/app/(admin)/admin/[tenant]/webhooks/[id]/DeliveriesCard");
    const at = new Date("2026-12-06T03:04:05Z");
    const html = text(
      renderToStaticMarkup(
        DeliveriesCard({
          deliveries: [
            {
              id: "d1",
              messageId: "m1",
              eventType: "lead.created",
              status: "delivered",
              attempts: 1,
              lastStatusCode: 200,
              lastError: null,
              createdAt: at,
            },
          ] as never,
          redeliver: (async () => ({})) as never,
          tz: "Asia/Tokyo",
        }),
      ),
    );
    expect(html).toContain("6 Dec 2026, 12:04:05 GMT+9");
    expect(html).not.toContain("2026-12-06 03:04:05");
  });

  it("the Overview says when the budget resets in the business's zone", async () => {
    await t.handle.platform.update(tenants).set({ monthlyTokenBudget: 10 }).where(eq(tenants.id, tokyo.id));
    const { usageMonthly } = await import("@/lib/db/schema");
    const { usageMonth } = await import("@/lib/db/queries/usage");
    await t.handle.platform
      .insert(usageMonthly)
      .values({ tenantId: tokyo.id, month: usageMonth(), promptTokens: 20, completionTokens: 0 });
    actAs(owner);
    const overview = await page("[tenant]", { tenant: "tz-tokyo" });
    const now = new Date();
    const reset = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    expect(overview).toContain(`resets on ${formatDateTime(reset, { tz: "Asia/Tokyo" })}`);
    expect(overview).not.toContain("(UTC)");
  });
});

describe("a business the operator created", () => {
  it("starts in UTC and offers its admin another zone until one is chosen, kept or changed", async () => {
    actAs(op);
    const operator = await import("@/app/(admin)/admin/operator/actions");
    const made = await operator.createTenantAction(
      {},
      fd({ name: "Zoe's Zither", slug: "zoe-zither", ownerEmail: "owner@tz-all.test" }),
    );
    expect(made.ok).toBe(true);
    actAs(owner);
    const before = await page("[tenant]", { tenant: "zoe-zither" });
    expect(before).toContain("Dates here are shown in UTC");
    expect(before).toContain("Keep UTC");

    const settings = await import("@/app/(admin)/admin/[tenant]/settings/actions");
    const kept = await settings.saveTimeZoneAction("zoe-zither", {}, fd({ timeZone: "UTC" }));
    expect(kept.ok).toBe(true);
    expect(await page("[tenant]", { tenant: "zoe-zither" })).not.toContain("Dates here are shown in UTC");
  });

  it("a business whose owner signed up with the browser's zone is not asked again", async () => {
    actAs(owner);
    expect(await page("[tenant]", { tenant: "tz-tokyo" })).not.toContain("Dates here are shown in");
  });
});
