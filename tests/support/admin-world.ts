import { hashPassword } from "@/lib/auth/password";
import type { DbHandle } from "@/lib/db/client";
import { createTenant } from "@/lib/db/queries/tenants";
import { addMembership, createUser } from "@/lib/db/queries/users";
import type { Role } from "@/lib/db/schema";

// Small builders for admin tests: people and businesses with their roles.

export const TEST_PASSWORD = "correct horse battery staple";

// Test people sign in many times (the throttle tests twenty times in one case); at OWASP's cost each attempt
// took over a second on a busy 2-core machine. The stored hash names its own parameters, so a cheap one here
// leaves the sign-in path unchanged. tests/unit/password.test.ts holds production's parameters.
const TEST_HASH_PARAMS = { N: 2 ** 10, r: 8, p: 1 };

let hashed: Promise<string> | undefined;

export async function makeUser(
  db: DbHandle,
  email: string,
  opts: { isOperator?: boolean; name?: string; mustChangePassword?: boolean } = {},
) {
  hashed ??= hashPassword(TEST_PASSWORD, TEST_HASH_PARAMS);
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
