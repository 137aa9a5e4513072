import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyPassword } from "@/lib/auth/password";
import { findTenantBySlug } from "@/lib/db/queries/tenants";
import { findMembership, findUserByEmail } from "@/lib/db/queries/users";
import { packConfigs, tenants, users } from "@/lib/db/schema";
import { seed } from "@/lib/tenants/seed";
import { freshDb, type TestDb } from "../support/db";

let t: TestDb;
beforeAll(async () => {
  t = await freshDb();
});
afterAll(() => t?.close());

describe("first-start seed", () => {
  it("creates the operator and the demo tenant once, printing a generated password only the first time", async () => {
    const env = { MICHI_ADMIN_EMAIL: "Owner@Example.com", MICHI_ADMIN_PASSWORD: undefined };
    let n = 0;
    const make = () => `generated-password-${++n}`;
    // Two instances starting together: the advisory lock makes one of them find everything in place.
    const [first, second] = await Promise.all([seed(t.handle, env, make), seed(t.handle, env, make)]);
    const printed = [first.generatedPassword, second.generatedPassword].filter(Boolean);
    expect(printed).toHaveLength(1);
    const again = await seed(t.handle, env, make);
    expect(again.generatedPassword).toBeNull();

    expect(await t.handle.platform.select().from(users)).toHaveLength(1);
    expect(await t.handle.platform.select().from(tenants)).toHaveLength(1);
    const admin = await findUserByEmail(t.handle.platform, "owner@example.com");
    expect(admin?.isOperator).toBe(true);
    expect(await verifyPassword(admin?.passwordHash, printed[0]!)).toBe(true);
    const demo = await findTenantBySlug(t.handle.platform, "demo");
    expect((await findMembership(t.handle.platform, demo!.id, admin!.id))?.role).toBe("owner");
    const packs = await t.handle.platform.select().from(packConfigs);
    expect(packs.map((p) => [p.packId, p.enabled])).toEqual([["get_business_info", true]]);
  });
});
