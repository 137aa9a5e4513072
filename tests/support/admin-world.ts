import { hashPassword } from "@/lib/auth/password";
import type { DbHandle } from "@/lib/db/client";
import { createTenant } from "@/lib/db/queries/tenants";
import { addMembership, createUser } from "@/lib/db/queries/users";
import type { Role } from "@/lib/db/schema";

// Small builders for admin tests: people and businesses with their roles.

export const TEST_PASSWORD = "correct horse battery staple";

let hashed: Promise<string> | undefined;

export async function makeUser(
  db: DbHandle,
  email: string,
  opts: { isOperator?: boolean; name?: string; mustChangePassword?: boolean } = {},
) {
  hashed ??= hashPassword(TEST_PASSWORD);
  return createUser(db.platform, {
    email,
    name: opts.name ?? email.split("@")[0]!,
    passwordHash: await hashed,
    isOperator: opts.isOperator,
    mustChangePassword: opts.mustChangePassword,
  });
}

export async function makeTenant(
  db: DbHandle,
  slug: string,
  members: readonly (readonly [{ id: string }, Role])[],
  extra: { siteDomains?: string[] } = {},
) {
  const tenant = await createTenant(db.platform, {
    slug,
    name: `Business ${slug}`,
    siteDomains: extra.siteDomains,
  });
  for (const [user, role] of members) await addMembership(db.platform, tenant.id, user.id, role);
  return tenant;
}
