import "server-only";
import { assertOperator, type OperatorContext } from "../auth/access";
import { forTenantAudited } from "../db/queries/audit";
import {
  insertInvitation,
  listUnansweredInvitations,
  revokePendingInvitation,
} from "../db/queries/invitations";
import { listMembers, type Member } from "../db/queries/members";
import { getTenantById } from "../db/queries/operator";
import type { Role } from "../db/schema";
import { AppError } from "../errors";
import { type MailResult, mailDelivery, sendMail } from "../mail/send";
import { newLinkToken } from "../security/link-token";
import { invitationMail } from "../team/invitation-mail";
import { INVITATION_DAYS, invitationUrl } from "../team/invitations";

// What the operator sees of one business's team, and the one thing they can do for it: send an unanswered
// invitation again. A business the operator created for an invited owner has no member until that owner accepts;
// the operator's page used to say "Members 0" and nothing else, with no way to send a fresh link.

const DAY_MS = 24 * 60 * 60 * 1000;

export type OperatorTeamView = {
  members: Member[];
  invitations: { id: string; email: string; role: Role; expiresAt: Date; expired: boolean }[];
};

export async function operatorTeamView(
  ctx: OperatorContext,
  tenantId: string,
  now = new Date(),
): Promise<OperatorTeamView> {
  assertOperator(ctx);
  return ctx.db.forTenant(tenantId, async (tx) => ({
    members: await listMembers(tx, tenantId),
    invitations: (await listUnansweredInvitations(tx, tenantId)).map((i) => ({
      ...i,
      expired: i.expiresAt <= now,
    })),
  }));
}

/**
 * Replaces an unanswered invitation (open or expired) with a new one for the same address and role: the old link
 * stops working, the new one is mailed and lasts the usual week. With mail off there is no way to deliver it.
 */
export async function resendInvitation(
  ctx: OperatorContext,
  tenantId: string,
  invitationId: string,
  now = new Date(),
): Promise<{ email: string; mail: MailResult }> {
  assertOperator(ctx);
  if (mailDelivery() === "off")
    throw new AppError(
      "conflict",
      "Mail is off on this installation, so an invitation cannot be delivered. Create the owner's account instead.",
    );
  const tenant = await getTenantById(ctx.db.platform, tenantId);
  if (!tenant) throw new AppError("not_found", "That business does not exist.");
  const { token, hash } = newLinkToken();
  const expiresAt = new Date(now.getTime() + INVITATION_DAYS * DAY_MS);
  const old = await forTenantAudited(ctx.db, tenantId, ctx.user, async (tx, record) => {
    const revoked = await revokePendingInvitation(tx, tenantId, invitationId, now);
    if (!revoked)
      throw new AppError("not_found", "That invitation was already accepted or revoked, or does not exist.");
    await insertInvitation(tx, { tenantId, ...revoked, tokenHash: hash, invitedBy: ctx.user.id, expiresAt });
    await record("invitation.resent", {
      target: revoked.email,
      details: { role: revoked.role, expiresAt: expiresAt.toISOString(), by: "operator" },
    });
    return revoked;
  });
  const mail = await sendMail({
    kind: "invitation",
    tenantId,
    to: old.email,
    ...invitationMail({
      business: tenant.name,
      inviter: ctx.user.name || ctx.user.email,
      role: old.role,
      link: invitationUrl(token),
      days: INVITATION_DAYS,
    }),
  });
  return { email: old.email, mail };
}
