import "server-only";
import { sql } from "drizzle-orm";
import { hashPassword } from "../auth/password";
import type { Env } from "../env";
import type { Db, DbHandle } from "./client";
import { createTenant, findTenantBySlug } from "./queries/tenants";
import { addMembership, createUser, findUserByEmail } from "./queries/users";
import { packConfigs } from "./schema";

export type SeedResult = { adminEmail: string; generatedPassword: string | null; createdTenant: boolean };

export const DEMO_SLUG = "demo";

/**
 * First start only: an operator account and a demo tenant. Idempotent, so every later start changes nothing
 * and prints no new password.
 */
export async function seed(
  handle: DbHandle,
  e: Pick<Env, "MICHI_ADMIN_EMAIL" | "MICHI_ADMIN_PASSWORD">,
  makePassword: () => string,
): Promise<SeedResult> {
  // Instances starting together on an empty database would race to insert the same rows: one transaction
  // under an advisory lock makes the second find everything in place.
  return handle.platform.transaction(async (db) => {
    await db.execute(sql`select pg_advisory_xact_lock(4242002)`);
    // A transaction offers the same query API; drizzle's generics just do not say so.
    return seedLocked(db as unknown as Db, e, makePassword);
  });
}

async function seedLocked(
  db: Db,
  e: Pick<Env, "MICHI_ADMIN_EMAIL" | "MICHI_ADMIN_PASSWORD">,
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
  let createdTenant = false;
  let demo = await findTenantBySlug(db, DEMO_SLUG);
  if (!demo) {
    demo = await createTenant(db, {
      slug: DEMO_SLUG,
      name: "Michi Café (demo)",
      bot: {
        displayName: "Michi",
        greeting: "Hi! I can tell you about our opening hours, menu and where to find us.",
        instructions: "You are the friendly assistant of Michi Café, a small neighbourhood café.",
        starters: ["Are you open now?", "Where are you?", "Do you have vegan options?"],
        color: "#0f766e",
        position: "right",
      },
    });
    createdTenant = true;
    await addMembership(db, demo.id, admin.id, "owner");
    // A pack that needs no network, so the demo answers something useful out of the box.
    await db
      .insert(packConfigs)
      .values({
        tenantId: demo.id,
        packId: "get_business_info",
        enabled: true,
        config: {
          address: "1-2-3 Michi Street, Springfield",
          phone: "+1 555 0100",
          email: "hello@michi-cafe.example",
          hours: "Mon–Fri 8:00–18:00, Sat 9:00–15:00, closed Sundays",
          policies: "Dogs welcome on the terrace. We take card and cash.",
        },
      })
      .onConflictDoNothing();
  }
  return { adminEmail: admin.email, generatedPassword, createdTenant };
}
