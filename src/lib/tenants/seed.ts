import "server-only";
import { BOT_DEFAULTS } from "@/shared/bot-defaults";
import { hashPassword } from "../auth/password";
import type { Db, DbHandle } from "../db/client";
import { insertPackConfigIfMissing } from "../db/queries/packs";
import { findTenantBySlug, inSeedLock } from "../db/queries/tenants";
import { createUser, findUserByEmail } from "../db/queries/users";
import type { Env } from "../env";
import { createBusinessWithOwner } from "./create-business";

export type SeedResult = { adminEmail: string; generatedPassword: string | null; createdTenant: boolean };

export const DEMO_SLUG = "demo";

type SeedEnv = Pick<Env, "MICHI_ADMIN_EMAIL" | "MICHI_ADMIN_PASSWORD" | "MICHI_DEMO">;

/**
 * First start only: an operator account, and the demo tenant when `MICHI_DEMO` is on (development, or asked
 * for). Idempotent, so every later start changes nothing and prints no new password. Instances starting
 * together wait for one another (inSeedLock).
 */
export async function seed(handle: DbHandle, e: SeedEnv, makePassword: () => string): Promise<SeedResult> {
  return inSeedLock(handle, (db) => seedLocked(handle, db, e, makePassword));
}

async function seedLocked(
  handle: DbHandle,
  db: Db,
  e: SeedEnv,
  makePassword: () => string,
): Promise<SeedResult> {
  let generatedPassword: string | null = null;
  let admin = await findUserByEmail(db, e.MICHI_ADMIN_EMAIL);
  if (!admin) {
    const password = e.MICHI_ADMIN_PASSWORD ?? makePassword();
    if (!e.MICHI_ADMIN_PASSWORD) generatedPassword = password;
    admin = await createUser(db, {
      email: e.MICHI_ADMIN_EMAIL,
      name: "Operator",
      passwordHash: await hashPassword(password),
      isOperator: true,
    });
  }
  if (!e.MICHI_DEMO) return { adminEmail: admin.email, generatedPassword, createdTenant: false };
  if (await findTenantBySlug(db, DEMO_SLUG))
    return { adminEmail: admin.email, generatedPassword, createdTenant: false };

  const { tenant } = await createBusinessWithOwner(
    handle,
    {
      name: "Michi Café (demo)",
      slug: DEMO_SLUG,
      bot: {
        displayName: "Michi",
        greeting: "Hi! I can tell you about our opening hours, menu and where to find us.",
        instructions: "You are the friendly assistant of Michi Café, a small neighbourhood café.",
        starters: ["Are you open now?", "Where are you?", "Do you have vegan options?"],
        color: BOT_DEFAULTS.color,
        position: "right",
      },
      owner: { kind: "existing", user: admin },
      // The seed holds a platform transaction; a tenant-scoped audit write would wait for a second
      // connection, which a pool of one (DATABASE_POOL_MAX=1) does not have.
      audit: null,
    },
    db,
  );
  // A pack that needs no network, so the demo answers something useful out of the box.
  await insertPackConfigIfMissing(db, {
    tenantId: tenant.id,
    packId: "get_business_info",
    enabled: true,
    config: {
      address: "1-2-3 Michi Street, Springfield",
      phone: "+1 555 0100",
      email: "hello@michi-cafe.example",
      hours: "Mon–Fri 8:00–18:00, Sat 9:00–15:00, closed Sundays",
      policies: "Dogs welcome on the terrace. We take card and cash.",
    },
  });
  return { adminEmail: admin.email, generatedPassword, createdTenant: true };
}
