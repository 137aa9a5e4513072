import "server-only";
import { and, asc, eq, sql } from "drizzle-orm";
import type { Db, TenantTx } from "../client";
import { memberships, type Role, tenants, users } from "../schema";

// A tenant's team. Reads and changes run inside the tenant's transaction; finding a person by e-mail and
// creating their account are platform work and live in the callers.

export type Member = { userId: string; email: string; name: string; role: Role; since: Date };

// Every query names the tenant explicitly as well: row-level security is the backstop, not the filter.

export async function listMembers(tx: TenantTx, tenantId: string): Promise<Member[]> {
  // The tenant role may read only id, email, name and created_at of users: never password hashes.
  return tx
    .select({
      userId: memberships.userId,
      email: users.email,
      name: users.name,
      role: memberships.role,
      since: memberships.createdAt,
    })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.tenantId, tenantId))
    .orderBy(asc(memberships.createdAt), asc(users.email));
}

/**
 * Serialises member changes of one tenant: two owners demoting each other at the same moment must not
 * both see "another owner is left" and leave the tenant without one.
 */
export async function lockTeam(tx: TenantTx, tenantId: string): Promise<void> {
  await tx.select({ id: tenants.id }).from(tenants).where(eq(tenants.id, tenantId)).for("update");
}

export async function getMember(
  tx: TenantTx,
  tenantId: string,
  userId: string,
): Promise<{ userId: string; email: string; role: Role } | null> {
  const [row] = await tx
    .select({ userId: memberships.userId, email: users.email, role: memberships.role })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.tenantId, tenantId), eq(memberships.userId, userId)))
    .limit(1);
  return row ?? null;
}

/** The member of this tenant with that e-mail (any case), or null. */
export async function findMemberByEmail(tx: TenantTx, tenantId: string, email: string) {
  const [row] = await tx
    .select({ userId: memberships.userId })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.tenantId, tenantId), sql`lower(${users.email}) = lower(${email})`))
    .limit(1);
  return row ?? null;
}

export async function countOwners(tx: TenantTx, tenantId: string): Promise<number> {
  const [row] = await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(memberships)
    .where(and(eq(memberships.tenantId, tenantId), eq(memberships.role, "owner")));
  return row?.n ?? 0;
}

export async function insertMember(
  tx: TenantTx,
  tenantId: string,
  userId: string,
  role: Role,
): Promise<boolean> {
  const rows = await tx
    .insert(memberships)
    .values({ tenantId, userId, role })
    .onConflictDoNothing()
    .returning({ userId: memberships.userId });
  return rows.length === 1;
}

export async function updateMemberRole(
  tx: TenantTx,
  tenantId: string,
  userId: string,
  role: Role,
): Promise<void> {
  await tx
    .update(memberships)
    .set({ role })
    .where(and(eq(memberships.tenantId, tenantId), eq(memberships.userId, userId)));
}

export async function deleteMember(tx: TenantTx, tenantId: string, userId: string): Promise<void> {
  await tx.delete(memberships).where(and(eq(memberships.tenantId, tenantId), eq(memberships.userId, userId)));
}

/** Platform path: the businesses a person belongs to, for the switcher and the landing redirect. */
export async function tenantsOfUser(db: Db, userId: string) {
  return db
    .select({ id: tenants.id, slug: tenants.slug, name: tenants.name, role: memberships.role })
    .from(memberships)
    .innerJoin(tenants, eq(tenants.id, memberships.tenantId))
    .where(eq(memberships.userId, userId))
    .orderBy(asc(memberships.createdAt), asc(tenants.name));
}
