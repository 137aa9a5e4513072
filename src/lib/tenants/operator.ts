import "server-only";
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
import { type CreatedBusiness, createBusinessWithOwner } from "./create-business";

// The operator's platform-level use cases, for the operator only. Every change is also written to the affected
// tenant's audit log, inside the same transaction when the change itself is tenant-scoped.

export async function createBusiness(
  ctx: OperatorContext,
  input: { name: string; slug: string; ownerEmail: string },
): Promise<CreatedBusiness> {
  assertOperator(ctx);
  return createBusinessWithOwner(ctx.db, {
    name: input.name,
    slug: input.slug,
    owner: { kind: "by-email", email: input.ownerEmail },
    audit: {
      actor: ctx.user,
      details: (owner, newAccount) => ({ owner: owner.email, newAccount, by: "operator" }),
    },
  });
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
