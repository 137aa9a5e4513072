import "server-only";
import { assertRole, auditedTx, type SessionUser, type TenantContext } from "../auth/access";
import { hashPassword } from "../auth/password";
import type { DbHandle } from "../db/client";
import { forTenantAudited } from "../db/queries/audit";
import {
  findInvitationByTokenHash,
  insertInvitation,
  listPendingInvitations,
  lockInvitation,
  markInvitationAccepted,
  revokePendingInvitation,
} from "../db/queries/invitations";
import { findMemberByEmail, insertMember, lockTeam } from "../db/queries/members";
import { createUser, findUserByEmail, type UserRow } from "../db/queries/users";
import type { Role } from "../db/schema";
import { env } from "../env";
import { AppError } from "../errors";
import { type MailResult, sendMail } from "../mail/send";
import { LIMITS, takeOrRefuse } from "../security/limits";
import { hashLinkToken, isLinkToken, newLinkToken } from "../security/link-token";
import { invitationMail } from "./invitation-mail";

// Invitations with consent: an owner invites an e-mail address with a role, the person opens the link, signs
// in (or creates an account) and accepts. The link is the key: single use, expiring, stored only as a hash,
// shown to the owner once and mailed to the address. The owner's answer is the same whether or not the
// address has an account, so the Team page tells nobody which e-mails are registered.

export const INVITATION_DAYS = 7;
const DAY_MS = 24 * 60 * 60 * 1000;

export const invitationUrl = (token: string) => `${env().MICHI_PUBLIC_URL}/invite#${token}`;

export type CreatedInvitation = {
  email: string;
  role: Role;
  /** The link with its token: shown to the owner this once, never stored. */
  link: string;
  expiresAt: Date;
  mail: MailResult;
};

export async function inviteMember(
  ctx: TenantContext,
  input: { email: string; role: Role },
  now = new Date(),
): Promise<CreatedInvitation> {
  assertRole(ctx, "owner");
  // Each invitation can send a mail to any address; a ceiling per owner bounds that (and any probing).
  await takeOrRefuse(LIMITS.invitesPerOwner, ctx.user.id, "You have sent many invitations in a short time.");
  const tenantId = ctx.tenant.id;
  const { token, hash } = newLinkToken();
  const expiresAt = new Date(now.getTime() + INVITATION_DAYS * DAY_MS);
  await auditedTx(ctx, async (tx, record) => {
    await lockTeam(tx, tenantId);
    // Only this business's own members are looked at: whether the address has an account elsewhere stays unsaid.
    if (await findMemberByEmail(tx, tenantId, input.email))
      throw new AppError("conflict", `${input.email} is already a member of this business.`, {
        fieldErrors: { email: [`${input.email} is already a member.`] },
      });
    await insertInvitation(tx, {
      tenantId,
      email: input.email,
      role: input.role,
      tokenHash: hash,
      invitedBy: ctx.user.id,
      expiresAt,
    });
    await record("invitation.created", {
      target: input.email,
      details: { role: input.role, expiresAt: expiresAt.toISOString() },
    });
  });
  const link = invitationUrl(token);
  const mail = await sendMail({
    kind: "invitation",
    tenantId,
    to: input.email,
    ...invitationMail({
      business: ctx.tenant.name,
      inviter: ctx.user.name || ctx.user.email,
      role: input.role,
      link,
      days: INVITATION_DAYS,
    }),
  });
  return { email: input.email, role: input.role, link, expiresAt, mail };
}

export async function pendingInvitations(ctx: TenantContext, now = new Date()) {
  return ctx.db.forTenant(ctx.tenant.id, (tx) => listPendingInvitations(tx, ctx.tenant.id, now));
}

export async function revokeInvitation(ctx: TenantContext, invitationId: string): Promise<void> {
  assertRole(ctx, "owner");
  const tenantId = ctx.tenant.id;
  await auditedTx(ctx, async (tx, record) => {
    const revoked = await revokePendingInvitation(tx, tenantId, invitationId, new Date());
    if (!revoked)
      throw new AppError("not_found", "That invitation was already accepted or revoked, or does not exist.");
    await record("invitation.revoked", { target: revoked.email, details: { role: revoked.role } });
  });
}

export type InvitationView =
  | { state: "unknown" }
  | {
      state: "open" | "accepted" | "revoked" | "expired";
      business: string;
      email: string;
      role: Role;
      inviter: string;
      expiresAt: Date;
    };

/** What the invitation page shows to whoever holds the link. */
export async function readInvitation(db: DbHandle, token: string, now = new Date()): Promise<InvitationView> {
  if (!isLinkToken(token)) return { state: "unknown" };
  const found = await findInvitationByTokenHash(db.platform, hashLinkToken(token));
  if (!found) return { state: "unknown" };
  const inv = found.invitation;
  const state = inv.acceptedAt
    ? "accepted"
    : inv.revokedAt
      ? "revoked"
      : inv.expiresAt <= now
        ? "expired"
        : "open";
  return {
    state,
    business: found.tenantName,
    email: inv.email,
    role: inv.role,
    inviter: found.inviterName || found.inviterEmail || "An owner",
    expiresAt: inv.expiresAt,
  };
}

const NOT_OPEN: Record<Exclude<InvitationView["state"], "open">, string> = {
  unknown: "This invitation link is not valid. Check that you copied all of it.",
  accepted: "This invitation has already been used.",
  revoked: "This invitation was withdrawn. Ask the owner of the business for a new one.",
  expired: "This invitation has expired. Ask the owner of the business for a new one.",
};

/**
 * Accepts for the signed-in person, whatever address the invitation was sent to: the link is what the
 * owner handed over. The business and the role come from the stored invitation, never from the request.
 */
export async function acceptInvitation(
  db: DbHandle,
  user: Pick<SessionUser, "id" | "email">,
  token: string,
  now = new Date(),
): Promise<{ slug: string; business: string; role: Role; alreadyMember: boolean }> {
  const found = isLinkToken(token)
    ? await findInvitationByTokenHash(db.platform, hashLinkToken(token))
    : null;
  if (!found) throw new AppError("not_found", NOT_OPEN.unknown);
  const tenantId = found.invitation.tenantId;
  return forTenantAudited(db, tenantId, { id: user.id, email: user.email }, async (tx, record) => {
    await lockTeam(tx, tenantId);
    const inv = await lockInvitation(tx, tenantId, found.invitation.id);
    if (!inv) throw new AppError("not_found", NOT_OPEN.unknown);
    if (inv.acceptedAt) throw new AppError("conflict", NOT_OPEN.accepted);
    if (inv.revokedAt) throw new AppError("conflict", NOT_OPEN.revoked);
    if (inv.expiresAt <= now) throw new AppError("conflict", NOT_OPEN.expired);
    const added = await insertMember(tx, tenantId, user.id, inv.role);
    await markInvitationAccepted(tx, tenantId, inv.id, user.id, now);
    if (added)
      await record("member.added", {
        target: user.email,
        details: { role: inv.role, via: "invitation", invited: inv.email },
      });
    return { slug: found.tenantSlug, business: found.tenantName, role: inv.role, alreadyMember: !added };
  });
}

/**
 * An account for the invited address, from the invitation page (also where sign-up is closed: the link is
 * the permission), accepted at once: the person set a password and lands in the business, signed in (the
 * caller issues the session for the returned user). When the address already has an account nothing is
 * created (null) and the caller sends the person to sign in; that tells the holder of a link mailed to that
 * address that it has an account, which the owner's side (the Team page) still never learns. The password
 * is hashed in both cases so they take as long.
 */
export async function signUpFromInvitation(
  db: DbHandle,
  input: { token: string; name: string; password: string; ip: string },
  now = new Date(),
): Promise<{ user: Pick<UserRow, "id" | "email" | "name" | "sessionVersion">; slug: string } | null> {
  const view = await readInvitation(db, input.token, now);
  if (view.state !== "open")
    throw new AppError(view.state === "unknown" ? "not_found" : "conflict", NOT_OPEN[view.state]);
  await takeOrRefuse(LIMITS.inviteSignUpPerIp, input.ip, "Too many accounts from your network.");
  const passwordHash = await hashPassword(input.password);
  if (await findUserByEmail(db.platform, view.email)) return null;
  let user: UserRow;
  try {
    user = await createUser(db.platform, { email: view.email, name: input.name, passwordHash });
  } catch (e) {
    // Two submissions at once: the unique e-mail index lets one win, and the other signs in.
    if (await findUserByEmail(db.platform, view.email)) return null;
    throw e;
  }
  const joined = await acceptInvitation(db, { id: user.id, email: user.email }, input.token, now);
  const { id, email, name, sessionVersion } = user;
  return { user: { id, email, name, sessionVersion }, slug: joined.slug };
}
