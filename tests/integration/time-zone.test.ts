import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { installTestDb } from "../support/admin-env";
import { actAs } from "../support/admin-mocks";
import { makeTenant, makeUser } from "../support/admin-world";
import type { TestDb } from "../support/db";

vi.mock("@/lib/auth/claims", () => import("../support/admin-mocks").then((m) => m.claimsModule));
vi.mock("next/headers", () => import("../support/admin-mocks").then((m) => m.headersModule));
vi.mock("next/cache", () => import("../support/admin-mocks").then((m) => m.cacheModule));

// Issue 30 item 11: a time zone per business, set in Data & retention and defaulted from the browser at
// sign-up; the admin's dates and Usage days read in it.

const settings = await import("@/app/(admin)/admin/[tenant]/settings/actions");
const { openBusinessFromSignUp } = await import("@/lib/tenants/sign-up");
const { listAudit } = await import("@/lib/db/queries/audit");
const { tenants } = await import("@/lib/db/schema");

let t: TestDb;
let owner: Awaited<ReturnType<typeof makeUser>>;
let tenantId: string;

const fd = (v: Record<string, string>) => {
  const f = new FormData();
  for (const [k, val] of Object.entries(v)) f.set(k, val);
  return f;
};
const zoneOf = async (id: string) =>
  (await t.handle.platform.select().from(tenants).where(eq(tenants.id, id)))[0]?.timeZone;

beforeAll(async () => {
  t = await installTestDb();
  owner = await makeUser(t.handle, "tz-owner@tz.test");
  tenantId = (await makeTenant(t.handle, "tz-shop", [[owner, "owner"]])).id;
});
afterAll(() => t?.close());

describe("the business's time zone", () => {
  it("starts as UTC, is changed by an admin and recorded in the audit log", async () => {
    expect(await zoneOf(tenantId)).toBe("UTC");
    actAs(owner);
    const r = await settings.saveTimeZoneAction("tz-shop", {}, fd({ timeZone: "Europe/Madrid" }));
    expect(r).toMatchObject({ ok: true, message: "Dates are now shown in Europe/Madrid." });
    expect(await zoneOf(tenantId)).toBe("Europe/Madrid");
    const { entries } = await t.handle.forTenant(tenantId, (tx) => listAudit(tx, { limit: 10 }));
    expect(entries[0]).toMatchObject({
      action: "tenant.time_zone_changed",
      details: { from: "UTC", to: "Europe/Madrid" },
    });
  });

  it("refuses a zone that does not exist, with a field message", async () => {
    actAs(owner);
    const r = await settings.saveTimeZoneAction("tz-shop", {}, fd({ timeZone: "Mars/Olympus" }));
    expect(r).toMatchObject({ ok: false, fieldErrors: { timeZone: "Choose a time zone from the list." } });
    expect(await zoneOf(tenantId)).toBe("Europe/Madrid");
  });

  it("takes the browser's zone at sign-up, and UTC when the browser sent none or an unknown one", async () => {
    const made = async (email: string, timeZone?: string) =>
      (
        await openBusinessFromSignUp(t.handle, {
          name: "N",
          email,
          businessName: `Shop ${email}`,
          passwordHash: "scrypt$unused",
          timeZone: timeZone ?? null,
        })
      ).tenant.id;
    expect(await zoneOf(await made("tokyo@tz.test", "Asia/Tokyo"))).toBe("Asia/Tokyo");
    expect(await zoneOf(await made("none@tz.test"))).toBe("UTC");
    expect(await zoneOf(await made("bad@tz.test", "Nowhere/Land"))).toBe("UTC");
  });
});
