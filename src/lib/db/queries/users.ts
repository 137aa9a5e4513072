import "server-only";
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../client";
import { memberships, type Role, users } from "../schema";

export async function findUserByEmail(db: Db, email: string) {
  const [row] = await db.select().from(users).where(sql`lower(${users.email}) = lower(${email})`).limit(1);
  return row ?? null;
}

export async function findUserById(db: Db, id: string) {
  const [row] = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return row ?? null;
}

export async function createUser(
  db: Db,
  input: {
    email: string;
    name?: string;
    passwordHash: string | null;
    isOperator?: boolean;
    mustChangePassword?: boolean;
  },
) {
  const [row] = await db
    .insert(users)
    .values({
      email: input.email.trim().toLowerCase(),
      name: input.name ?? "",
      passwordHash: input.passwordHash,
      isOperator: input.isOperator ?? false,
      mustChangePassword: input.mustChangePassword ?? false,
    })
    .returning();
  if (!row) throw new Error("user insert returned nothing");
  return row;
}

export async function addMembership(db: Db, tenantId: string, userId: string, role: Role) {
  await db.insert(memberships).values({ tenantId, userId, role }).onConflictDoNothing();
}

/** Platform path used by the guard: the membership must be found before a tenant scope exists. */
export async function findMembership(db: Db, tenantId: string, userId: string) {
  const [row] = await db
    .select()
    .from(memberships)
    .where(and(eq(memberships.tenantId, tenantId), eq(memberships.userId, userId)))
    .limit(1);
  return row ?? null;
}

export type UserRow = typeof users.$inferSelect;

/** Signs out every session of the user: tokens carry the version they were issued with. Null: no such user. */
export async function bumpSessionVersion(db: Db, userId: string): Promise<number | null> {
  const [row] = await db
    .update(users)
    .set({ sessionVersion: sql`${users.sessionVersion} + 1`, updatedAt: new Date() })
    .where(eq(users.id, userId))
    .returning({ v: users.sessionVersion });
  return row?.v ?? null;
}

export async function setUserName(db: Db, userId: string, name: string): Promise<void> {
  await db.update(users).set({ name, updatedAt: new Date() }).where(eq(users.id, userId));
}

/** Stores a new password hash, clears the one-time flag and revokes every session; null: no such user. */
export async function setUserPassword(db: Db, userId: string, passwordHash: string): Promise<number | null> {
  const [row] = await db
    .update(users)
    .set({
      passwordHash,
      mustChangePassword: false,
      sessionVersion: sql`${users.sessionVersion} + 1`,
      updatedAt: new Date(),
    })
    .where(eq(users.id, userId))
    .returning({ v: users.sessionVersion });
  return row?.v ?? null;
}
