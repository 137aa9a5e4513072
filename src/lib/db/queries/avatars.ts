import "server-only";
import { and, eq } from "drizzle-orm";
import type { Db, TenantTx } from "../client";
import { type AvatarType, userAvatars } from "../schema";

// Profile photos (drizzle/0032). Writes and the owner's own read are platform work (the person's account);
// tenant reads see only the current tenant's members' photos (the table's own row-level policy), which is
// what keeps a visitor or a member of another business from reaching a photo by a user id.

export type AvatarFile = { image: Buffer; contentType: AvatarType; version: string };

export async function putAvatar(db: Db, userId: string, file: AvatarFile): Promise<void> {
  const row = { ...file, updatedAt: new Date() };
  await db
    .insert(userAvatars)
    .values({ userId, ...row })
    .onConflictDoUpdate({ target: userAvatars.userId, set: row });
}

/** Removes the photo; true when there was one. */
export async function deleteAvatar(db: Db, userId: string): Promise<boolean> {
  const rows = await db
    .delete(userAvatars)
    .where(eq(userAvatars.userId, userId))
    .returning({ id: userAvatars.userId });
  return rows.length > 0;
}

/** The version of the caller's own photo (platform path, their account page), or null. */
export async function ownAvatarVersion(db: Db, userId: string): Promise<string | null> {
  const [row] = await db
    .select({ v: userAvatars.version })
    .from(userAvatars)
    .where(eq(userAvatars.userId, userId));
  return row?.v ?? null;
}

/** A member's photo of this version, in a tenant transaction: null for anyone who is not a member. */
export async function memberAvatar(
  tx: TenantTx,
  userId: string,
  version: string,
): Promise<AvatarFile | null> {
  const [row] = await tx
    .select({ image: userAvatars.image, contentType: userAvatars.contentType, version: userAvatars.version })
    .from(userAvatars)
    .where(and(eq(userAvatars.userId, userId), eq(userAvatars.version, version)));
  return row ?? null;
}
