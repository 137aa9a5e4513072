import "server-only";
import { and, eq, gt, isNull, lt } from "drizzle-orm";
import type { Db } from "../client";
import { pendingSignUps } from "../schema";

// Sign-ups waiting for their address to be confirmed (platform data: no account or business exists yet).

export type PendingSignUpRow = typeof pendingSignUps.$inferSelect;

export async function insertPendingSignUp(
  db: Db,
  row: {
    email: string;
    name: string;
    passwordHash: string;
    businessName?: string | null;
    timeZone?: string | null;
    invitationId?: string | null;
    expiresAt: Date;
  },
): Promise<string> {
  const [created] = await db.insert(pendingSignUps).values(row).returning({ id: pendingSignUps.id });
  if (!created) throw new Error("pending sign-up insert returned nothing");
  return created.id;
}

/** A pending sign-up the mail job may still act on: not used, not expired, no link made for it yet. */
export async function findMailablePendingSignUp(db: Db, id: string, now: Date) {
  const [row] = await db
    .select()
    .from(pendingSignUps)
    .where(
      and(
        eq(pendingSignUps.id, id),
        isNull(pendingSignUps.usedAt),
        isNull(pendingSignUps.tokenHash),
        gt(pendingSignUps.expiresAt, now),
      ),
    )
    .limit(1);
  return row ?? null;
}

export async function setPendingSignUpToken(db: Db, id: string, tokenHash: string): Promise<void> {
  await db.update(pendingSignUps).set({ tokenHash }).where(eq(pendingSignUps.id, id));
}

/** Forgets a pending sign-up that leads nowhere (the address has an account): its password hash goes with it. */
export async function deletePendingSignUp(db: Db, id: string): Promise<void> {
  await db.delete(pendingSignUps).where(eq(pendingSignUps.id, id));
}

/** The pending sign-up a still-usable link belongs to, or null (unknown, used or expired). */
export async function findUsablePendingSignUp(db: Db, tokenHash: string, now: Date) {
  const [row] = await db
    .select()
    .from(pendingSignUps)
    .where(
      and(
        eq(pendingSignUps.tokenHash, tokenHash),
        isNull(pendingSignUps.usedAt),
        gt(pendingSignUps.expiresAt, now),
      ),
    )
    .limit(1);
  return row ?? null;
}

/**
 * Uses up a usable link: the conditional update is the single-use guarantee (of two clicks at once, one gets
 * the row). Returns the row, or null when the link was unknown, used or expired.
 */
export async function claimPendingSignUp(db: Db, tokenHash: string, now: Date) {
  const [row] = await db
    .update(pendingSignUps)
    .set({ usedAt: now })
    .where(
      and(
        eq(pendingSignUps.tokenHash, tokenHash),
        isNull(pendingSignUps.usedAt),
        gt(pendingSignUps.expiresAt, now),
      ),
    )
    .returning();
  return row ?? null;
}

/** Gives a claimed link back when creating the account failed for a reason the person can retry. */
export async function releasePendingSignUp(db: Db, id: string): Promise<void> {
  await db.update(pendingSignUps).set({ usedAt: null }).where(eq(pendingSignUps.id, id));
}

/** Expired rows (they hold password hashes of sign-ups nobody finished), for the retention sweep. */
export async function purgeExpiredPendingSignUps(db: Db, now: Date): Promise<number> {
  const gone = await db
    .delete(pendingSignUps)
    .where(lt(pendingSignUps.expiresAt, now))
    .returning({ id: pendingSignUps.id });
  return gone.length;
}
