import "server-only";
import { and, desc, eq, gt, isNull, type SQL } from "drizzle-orm";
import type { Db, TenantTx } from "../client";
import { invitations, type Role, tenants, users } from "../schema";

// Invitations to join a tenant. Owners list, create and revoke them inside the tenant's transaction; the
// invitee's side starts from the link's token alone (they are not a member yet), so finding an invitation by
// its token hash is platform work, and what follows runs in the tenant the stored invitation names.

export type InvitationRow = typeof invitations.$inferSelect;

export async function insertInvitation(
  tx: TenantTx,
  row: { tenantId: string; email: string; role: Role; tokenHash: string; invitedBy: string; expiresAt: Date },
): Promise<InvitationRow> {
  const [out] = await tx.insert(invitations).values(row).returning();
  if (!out) throw new Error("invitation insert returned nothing");
  return out;
}

/** Invitations neither accepted nor revoked, newest first; with `now`, only those not expired by then. */
function unanswered(tx: TenantTx, tenantId: string, now: Date | null) {
  return tx
    .select({
      id: invitations.id,
      email: invitations.email,
      role: invitations.role,
      expiresAt: invitations.expiresAt,
      createdAt: invitations.createdAt,
    })
    .from(invitations)
    .where(
      and(
        eq(invitations.tenantId, tenantId),
        isNull(invitations.acceptedAt),
        isNull(invitations.revokedAt),
        now ? gt(invitations.expiresAt, now) : undefined,
      ),
    )
    .orderBy(desc(invitations.createdAt));
}

/** Invitations still waiting for an answer: neither accepted, revoked nor expired. */
export async function listPendingInvitations(tx: TenantTx, tenantId: string, now: Date) {
  return unanswered(tx, tenantId, now);
}

/**
 * Invitations nobody answered, expired ones included: the operator's page offers a new link for those (an owner
 * invited when the business was created who let the week pass is the usual case).
 */
export async function listUnansweredInvitations(tx: TenantTx, tenantId: string) {
  return unanswered(tx, tenantId, null);
}

/** Marks a pending invitation revoked; null when there is none with that id in this tenant. */
export async function revokePendingInvitation(
  tx: TenantTx,
  tenantId: string,
  id: string,
  now: Date,
): Promise<{ email: string; role: Role } | null> {
  const [row] = await tx
    .update(invitations)
    .set({ revokedAt: now })
    .where(
      and(
        eq(invitations.tenantId, tenantId),
        eq(invitations.id, id),
        isNull(invitations.acceptedAt),
        isNull(invitations.revokedAt),
      ),
    )
    .returning({ email: invitations.email, role: invitations.role });
  return row ?? null;
}

/** Platform path: the invitation a link points at, with the business and the inviter's name for the page. */
export async function findInvitationByTokenHash(db: Db, tokenHash: string) {
  return findInvitationWhere(db, eq(invitations.tokenHash, tokenHash));
}

/** Platform path: the invitation a pending sign-up was made for (its link's token is not at hand then). */
export async function findInvitationById(db: Db, id: string) {
  return findInvitationWhere(db, eq(invitations.id, id));
}

async function findInvitationWhere(db: Db, where: SQL) {
  const [row] = await db
    .select({
      invitation: invitations,
      tenantName: tenants.name,
      tenantSlug: tenants.slug,
      tenantStatus: tenants.status,
      tenantTimeZone: tenants.timeZone,
      inviterName: users.name,
      inviterEmail: users.email,
    })
    .from(invitations)
    .innerJoin(tenants, eq(tenants.id, invitations.tenantId))
    .leftJoin(users, eq(users.id, invitations.invitedBy))
    .where(where)
    .limit(1);
  return row ?? null;
}

/** The invitation locked for the accepting transaction, so two clicks cannot both use it. */
export async function lockInvitation(tx: TenantTx, tenantId: string, id: string) {
  const [row] = await tx
    .select()
    .from(invitations)
    .where(and(eq(invitations.tenantId, tenantId), eq(invitations.id, id)))
    .for("update");
  return row ?? null;
}

export async function markInvitationAccepted(
  tx: TenantTx,
  tenantId: string,
  id: string,
  userId: string,
  now: Date,
): Promise<void> {
  await tx
    .update(invitations)
    .set({ acceptedAt: now, acceptedBy: userId })
    .where(and(eq(invitations.tenantId, tenantId), eq(invitations.id, id)));
}
