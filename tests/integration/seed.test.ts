import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as demoPage } from "@/app/demo/route";
import { verifyPassword } from "@/lib/auth/password";
import type { DbHandle } from "@/lib/db/client";
import { findTenantBySlug } from "@/lib/db/queries/tenants";
import { findMembership, findUserByEmail } from "@/lib/db/queries/users";
import { packConfigs, tenants, users } from "@/lib/db/schema";
import { parseEnv } from "@/lib/env";
import { seed } from "@/lib/tenants/seed";
import { freshDb, type TestDb } from "../support/db";

let t: TestDb;
beforeAll(async () => {
  t = await freshDb();
});
afterAll(() => t?.close());

describe("first-start seed", () => {
  it("creates the operator and the demo tenant once, printing a generated password only the first time", async () => {
    const env = { MICHI_ADMIN_EMAIL: "Owner@Example.com", MICHI_ADMIN_PASSWORD: undefined, MICHI_DEMO: true };
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

describe("a production start without MICHI_DEMO", () => {
  it("creates the operator only: no demo tenant, and /demo answers 404", async () => {
    const prod = await freshDb();
    const saved = { ...process.env };
    try {
      const e = parseEnv({
        NODE_ENV: "production",
        MICHI_PUBLIC_URL: "https://chat.example.com",
        MICHI_SECRET_KEY: Buffer.alloc(32, 9).toString("base64"),
        MICHI_AUTH_SECRET: "y".repeat(40),
        MICHI_ADMIN_PASSWORD: "operator password",
      });
      await seed(prod.handle, e, () => "unused");
      expect(await prod.handle.platform.select().from(tenants)).toEqual([]);
      expect(await prod.handle.platform.select().from(users)).toHaveLength(1);

      // The page itself, with this environment and a demo tenant left from an earlier start.
      await seed(prod.handle, { ...e, MICHI_DEMO: true }, () => "unused");
      (globalThis as { __michiDb?: Promise<DbHandle> }).__michiDb = Promise.resolve(prod.handle);
      Object.assign(process.env, {
        NODE_ENV: "production",
        MICHI_PUBLIC_URL: "https://chat.example.com",
        MICHI_SECRET_KEY: Buffer.alloc(32, 9).toString("base64"),
        MICHI_AUTH_SECRET: "y".repeat(40),
        MICHI_DEMO: "",
      });
      (globalThis as { __michiEnv?: unknown }).__michiEnv = undefined;
      const off = await demoPage(new Request("https://chat.example.com/demo"));
      expect(off.status).toBe(404);
      // The app's "not found" with a way home, not a bare line of text (issue 45 item 9).
      expect(await off.text()).toMatch(
        /<h1>Page not found<\/h1>[\s\S]*<a href="\/">Go to the home page<\/a>/,
      );
      process.env.MICHI_DEMO = "true";
      (globalThis as { __michiEnv?: unknown }).__michiEnv = undefined;
      const shown = await demoPage(new Request("https://chat.example.com/demo"));
      expect(shown.status).toBe(200);
      expect(await shown.text()).toContain("data-michi-key=");
    } finally {
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
      Object.assign(process.env, saved);
      (globalThis as { __michiEnv?: unknown }).__michiEnv = undefined;
      (globalThis as { __michiDb?: unknown }).__michiDb = undefined;
      await prod.close();
    }
  });
});
