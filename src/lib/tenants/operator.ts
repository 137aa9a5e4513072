import "server-only";
import { slugify } from "@/shared/slug";
import { assertOperator, type OperatorContext } from "../auth/access";
import { forTenantAudited } from "../db/queries/audit";
import {
  getTenantById,
  updateKnowledgeLimits,
  updateTenantLimits,
  updateTenantStatus,
} from "../db/queries/operator";
import type { TenantRateLimits, TenantStatus } from "../db/schema";
import { AppError } from "../errors";
import { type MailResult, mailDelivery, sendMail } from "../mail/send";
import { newLinkToken } from "../security/link-token";
import { invitationMail } from "../team/invitation-mail";
import { INVITATION_DAYS, invitationUrl } from "../team/invitations";
import { type CreatedBusiness, createBusinessWithOwner } from "./create-business";

// The operator's platform-level use cases, for the operator only. Every change is also written to the affected
// tenant's audit log, inside the same transaction when the change itself is tenant-scoped.

export type OperatorCreatedBusiness = CreatedBusiness & {
  /** The owner's invitation, when the address had no account and mail is on: mailed, never shown. */
  invitation: { email: string; mail: MailResult } | null;
};

/**
 * With mail on, an owner without an account gets an invitation link by mail (accepting it creates the account
 * and signs them in); with mail off there is no way to deliver a link, so a one-time password is made for the
 * operator to hand over. An existing account is made the owner directly. An empty slug is derived from the name.
 */
export async function createBusiness(
  ctx: OperatorContext,
  input: { name: string; slug?: string; ownerEmail: string },
  now = new Date(),
): Promise<OperatorCreatedBusiness> {
  assertOperator(ctx);
  const link = mailDelivery() === "off" ? null : newLinkToken();
  const expiresAt = new Date(now.getTime() + INVITATION_DAYS * 24 * 60 * 60 * 1000);
  const created = await createBusinessWithOwner(ctx.db, {
    name: input.name,
    // The address derived from the name moves on to the next free one (-2, -3) as at sign-up; one the
    // operator typed is taken as it is.
    slug: input.slug && input.slug !== slugify(input.name) ? input.slug : undefined,
    owner: link
      ? { kind: "invite", email: input.ownerEmail, tokenHash: link.hash, expiresAt, invitedBy: ctx.user.id }
      : { kind: "by-email", email: input.ownerEmail },
    audit: {
      actor: ctx.user,
      details: (owner, newAccount) =>
        owner
          ? { owner: owner.email, newAccount, by: "operator" }
          : { owner: input.ownerEmail, invited: true, by: "operator" },
    },
  });
  if (created.owner || !link) return { ...created, invitation: null };
  const mail = await sendMail({
    kind: "invitation",
    tenantId: created.tenant.id,
    to: input.ownerEmail,
    ...invitationMail({
      business: created.tenant.name,
      inviter: ctx.user.name || ctx.user.email,
      role: "owner",
      link: invitationUrl(link.token),
      days: INVITATION_DAYS,
    }),
  });
  return { ...created, invitation: { email: input.ownerEmail, mail } };
}

async function existingTenant(ctx: OperatorContext, tenantId: string) {
  const found = await getTenantById(ctx.db.platform, tenantId);
  if (!found) throw new AppError("not_found", "That business does not exist.");
  return found;
}

export async function setTenantStatus(ctx: OperatorContext, tenantId: string, status: TenantStatus) {
  assertOperator(ctx);
  const found = await existingTenant(ctx, tenantId);
  if (found.status === status) return found;
  return forTenantAudited(ctx.db, tenantId, ctx.user, async (tx, record) => {
    const row = await updateTenantStatus(tx, tenantId, status);
    await record(status === "suspended" ? "tenant.suspended" : "tenant.resumed", { target: found.slug });
    return row!;
  });
}

export async function setTenantLimits(
  ctx: OperatorContext,
  tenantId: string,
  input: { monthlyTokenBudget: number | null; rateLimits: TenantRateLimits },
): Promise<void> {
  assertOperator(ctx);
  const found = await existingTenant(ctx, tenantId);
  const rateLimits = Object.fromEntries(
    Object.entries(input.rateLimits).filter(([, v]) => typeof v === "number"),
  ) as TenantRateLimits;
  await forTenantAudited(ctx.db, tenantId, ctx.user, async (tx, record) => {
    await updateTenantLimits(tx, tenantId, {
      monthlyTokenBudget: input.monthlyTokenBudget,
      rateLimits: Object.keys(rateLimits).length > 0 ? rateLimits : null,
    });
    await record("tenant.limits_changed", {
      target: found.slug,
      details: { monthlyTokenBudget: input.monthlyTokenBudget, rateLimits },
    });
  });
}

/** A business's upload quota (bytes of documents) and the highest website page cap it may choose. */
export async function setKnowledgeLimits(
  ctx: OperatorContext,
  tenantId: string,
  input: { uploadQuotaMb: number; pageCap: number },
): Promise<void> {
  assertOperator(ctx);
  const found = await existingTenant(ctx, tenantId);
  const uploadQuota = input.uploadQuotaMb * 1024 * 1024;
  await forTenantAudited(ctx.db, tenantId, ctx.user, async (tx, record) => {
    await updateKnowledgeLimits(tx, tenantId, { uploadQuota, pageCap: input.pageCap });
    await record("tenant.knowledge_limits_changed", {
      target: found.slug,
      details: { uploadQuotaMb: input.uploadQuotaMb, pageCap: input.pageCap },
    });
  });
}
