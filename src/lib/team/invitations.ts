import "server-only";
import { queuePendingSignUp } from "../accounts/pending-sign-up";
import { assertRole, auditedTx, type SessionUser, type TenantContext } from "../auth/access";
import type { DbHandle } from "../db/client";
import { forTenantAudited } from "../db/queries/audit";
import {
  findInvitationById,
  findInvitationByTokenHash,
  insertInvitation,
  listPendingInvitations,
  lockInvitation,
  markInvitationAccepted,
  revokePendingInvitation,
} from "../db/queries/invitations";
import { findMemberByEmail, insertMember, lockTeam } from "../db/queries/members";
import { createUser, type UserRow } from "../db/queries/users";
import type { Role } from "../db/schema";
import { env } from "../env";
import { AppError } from "../errors";
import { type MailResult, sendMail } from "../mail/send";
import { LIMITS, takeOrRefuse } from "../security/limits";
import { hashLinkToken, isLinkToken, newLinkToken } from "../security/link-token";
import { invitationMail } from "./invitation-mail";

// Invitations with consent: an owner invites an e-mail address with a role, the person opens the link, signs
// in (or creates an account, confirmed through a second link mailed to the invited address) and accepts. The link is the key: single use, expiring, stored only as a hash,
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
      /** The business's zone, in which the page says when the invitation expires. */
      timeZone: string;
    };

function stateOf(
  inv: { acceptedAt: Date | null; revokedAt: Date | null; expiresAt: Date },
  now: Date,
): Exclude<InvitationView["state"], "unknown"> {
  if (inv.acceptedAt) return "accepted";
  if (inv.revokedAt) return "revoked";
  return inv.expiresAt <= now ? "expired" : "open";
}

/** What the invitation page shows to whoever holds the link. */
export async function readInvitation(db: DbHandle, token: string, now = new Date()): Promise<InvitationView> {
  if (!isLinkToken(token)) return { state: "unknown" };
  const found = await findInvitationByTokenHash(db.platform, hashLinkToken(token));
  if (!found) return { state: "unknown" };
  const inv = found.invitation;
  const state = stateOf(inv, now);
  return {
    state,
    business: found.tenantName,
    email: inv.email,
    role: inv.role,
    inviter: found.inviterName || found.inviterEmail || "An owner",
    expiresAt: inv.expiresAt,
    timeZone: found.tenantTimeZone,
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
): Promise<Joined> {
  const found = isLinkToken(token)
    ? await findInvitationByTokenHash(db.platform, hashLinkToken(token))
    : null;
  if (!found) throw new AppError("not_found", NOT_OPEN.unknown);
  return acceptFound(db, user, found, now);
}

/** The invitation, when it can still be accepted; otherwise the refusal that says why not. */
function assertOpen(found: FoundInvitation | null, now: Date): FoundInvitation {
  const state = found ? stateOf(found.invitation, now) : "unknown";
  if (found && state === "open") return found;
  throw new AppError(
    state === "unknown" ? "not_found" : "conflict",
    NOT_OPEN[state as keyof typeof NOT_OPEN],
  );
}

type Joined = { slug: string; business: string; role: Role; alreadyMember: boolean };
type FoundInvitation = NonNullable<Awaited<ReturnType<typeof findInvitationByTokenHash>>>;

async function acceptFound(
  db: DbHandle,
  user: Pick<SessionUser, "id" | "email">,
  found: FoundInvitation,
  now: Date,
): Promise<Joined> {
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
 * "Create an account" on the invitation page (also where sign-up is closed: the link is the permission).
 * Nothing is created here: the answer is "check your inbox" for every address, and the confirmation link goes
 * to the invited address only, so whoever holds the invitation link (its owner too) cannot make the invitee's
 * account. Returns the address the mail goes to.
 */
export async function requestInvitationSignUp(
  db: DbHandle,
  input: { token: string; name: string; password: string; ip: string },
  now = new Date(),
): Promise<{ email: string }> {
  const found = isLinkToken(input.token)
    ? await findInvitationByTokenHash(db.platform, hashLinkToken(input.token))
    : null;
  const { email, id: invitationId } = assertOpen(found, now).invitation;
  await takeOrRefuse(LIMITS.inviteSignUpPerIp, input.ip, "Too many accounts from your network.");
  await queuePendingSignUp(db, { email, name: input.name, password: input.password, invitationId }, now);
  return { email };
}

/**
 * The confirmed end of an invitation sign-up: the invited address's account, with the password its owner
 * chose, accepted into the business at once. The caller checked that the address has no account yet.
 */
export async function createAccountAndAccept(
  db: DbHandle,
  pending: { invitationId: string; email: string; name: string; passwordHash: string },
  now = new Date(),
): Promise<{ user: UserRow; slug: string }> {
  const found = assertOpen(await findInvitationById(db.platform, pending.invitationId), now);
  const user = await createUser(db.platform, {
    email: pending.email,
    name: pending.name,
    passwordHash: pending.passwordHash,
  });
  const joined = await acceptFound(db, { id: user.id, email: user.email }, found, now);
  return { user, slug: joined.slug };
}
