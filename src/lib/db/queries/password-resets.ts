import "server-only";
import { and, eq, gt, isNull, sql } from "drizzle-orm";
import type { Db } from "../client";
import { passwordResets, users } from "../schema";

// Password reset links (platform data: a person's account is not a tenant's).

export async function insertPasswordReset(
  db: Db,
  row: { userId: string; tokenHash: string; expiresAt: Date },
): Promise<void> {
  await db.insert(passwordResets).values(row);
}

/** The account a still-usable link belongs to, or null (unknown, used or expired). */
export async function findUsableReset(db: Db, tokenHash: string, now: Date) {
  const [row] = await db
    .select({ id: passwordResets.id, userId: passwordResets.userId, email: users.email })
    .from(passwordResets)
    .innerJoin(users, eq(users.id, passwordResets.userId))
    .where(
      and(
        eq(passwordResets.tokenHash, tokenHash),
        isNull(passwordResets.usedAt),
        gt(passwordResets.expiresAt, now),
      ),
    )
    .limit(1);
  return row ?? null;
}

/**
 * Uses up a usable link and stores the new password hash, in one transaction; returns the account's e-mail,
 * or null when the link was unknown, used or expired. The conditional update is the single-use guarantee: of
 * two submissions at once, one gets the row. The password change also clears a one-time-password flag and
 * moves the session version on (every session signs out), and every other link of the account stops working.
 */
export async function completePasswordReset(
  db: Db,
  tokenHash: string,
  passwordHash: string,
  now: Date,
): Promise<string | null> {
  return db.transaction(async (tx) => {
    const [claimed] = await tx
      .update(passwordResets)
      .set({ usedAt: now })
      .where(
        and(
          eq(passwordResets.tokenHash, tokenHash),
          isNull(passwordResets.usedAt),
          gt(passwordResets.expiresAt, now),
        ),
      )
      .returning({ userId: passwordResets.userId });
    if (!claimed) return null;
    const [user] = await tx
      .update(users)
      .set({
        passwordHash,
        mustChangePassword: false,
        sessionVersion: sql`${users.sessionVersion} + 1`,
        updatedAt: now,
      })
      .where(eq(users.id, claimed.userId))
      .returning({ email: users.email });
    await tx
      .update(passwordResets)
      .set({ usedAt: now })
      .where(and(eq(passwordResets.userId, claimed.userId), isNull(passwordResets.usedAt)));
    return user?.email ?? null;
  });
}
