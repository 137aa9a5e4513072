import "server-only";
import { asc, eq, sql } from "drizzle-orm";
import { isUuid } from "@/shared/parse";
import { findOrCreateUser } from "../../auth/accounts";
import { AppError } from "../../errors";
import type { Db, DbHandle } from "../client";
import { memberships, type TenantRateLimits, type TenantStatus, tenants, usageMonthly } from "../schema";
import { audit } from "./audit";
import { createTenant, SLUG_RE } from "./tenants";
import { usageMonth } from "./usage";

// Platform-level tenant management for the operator. Every change is also written to the affected tenant's
// audit log, inside the same transaction when the change itself is tenant-scoped.

type Actor = { id: string; email: string };

export type TenantOverview = {
  id: string;
  slug: string;
  name: string;
  status: TenantStatus;
  members: number;
  tokensThisMonth: number;
  monthlyTokenBudget: number | null;
  createdAt: Date;
};

export async function listTenantsOverview(db: Db, month = usageMonth()): Promise<TenantOverview[]> {
  return db
    .select({
      id: tenants.id,
      slug: tenants.slug,
      name: tenants.name,
      status: tenants.status,
      members: sql<number>`(select count(*)::int from ${memberships} m where m.tenant_id = ${tenants.id})`,
      tokensThisMonth: sql<number>`coalesce(${usageMonthly.promptTokens} + ${usageMonthly.completionTokens}, 0)::float8`,
      monthlyTokenBudget: tenants.monthlyTokenBudget,
      createdAt: tenants.createdAt,
    })
    .from(tenants)
    .leftJoin(
      usageMonthly,
      sql`${usageMonthly.tenantId} = ${tenants.id} and ${usageMonthly.month} = ${month}`,
    )
    .orderBy(asc(tenants.name), asc(tenants.slug));
}

export async function getTenantById(db: Db, id: string) {
  if (!isUuid(id)) return null;
  const [row] = await db.select().from(tenants).where(eq(tenants.id, id)).limit(1);
  return row ?? null;
}

export async function createTenantWithOwner(
  handle: DbHandle,
  input: { name: string; slug: string; ownerEmail: string },
  actor: Actor,
) {
  if (!SLUG_RE.test(input.slug))
    throw new AppError("invalid_input", "Use lower-case letters, digits and dashes.", {
      fieldErrors: { slug: ["Use lower-case letters, digits and dashes (2–40 characters)."] },
    });
  const [taken] = await handle.platform
    .select({ id: tenants.id })
    .from(tenants)
    .where(eq(tenants.slug, input.slug));
  if (taken)
    throw new AppError("conflict", "That address is taken.", {
      fieldErrors: { slug: ["Another business already uses this address."] },
    });
  const { user, oneTimePassword } = await findOrCreateUser(handle.platform, input.ownerEmail);
  let tenant: typeof tenants.$inferSelect;
  try {
    tenant = await handle.platform.transaction(async (tx) => {
      const row = await createTenant(tx, { slug: input.slug, name: input.name });
      await tx.insert(memberships).values({ tenantId: row.id, userId: user.id, role: "owner" });
      return row;
    });
  } catch (e) {
    const code =
      (e as { code?: string; cause?: { code?: string } }).code ??
      (e as { cause?: { code?: string } }).cause?.code;
    if (code === "23505")
      throw new AppError("conflict", "That address is taken.", {
        fieldErrors: { slug: ["Another business already uses this address."] },
      });
    throw e;
  }
  await handle.forTenant(tenant.id, (tx) =>
    audit(tx, {
      tenantId: tenant.id,
      actor,
      action: "tenant.created",
      target: tenant.slug,
      details: { owner: user.email, newAccount: oneTimePassword !== null, by: "operator" },
    }),
  );
  return { tenant, owner: user, oneTimePassword };
}

export async function setTenantStatus(
  handle: DbHandle,
  tenantId: string,
  status: TenantStatus,
  actor: Actor,
) {
  const found = await getTenantById(handle.platform, tenantId);
  if (!found) throw new AppError("not_found", "That business does not exist.");
  if (found.status === status) return found;
  return handle.forTenant(tenantId, async (tx) => {
    const [row] = await tx
      .update(tenants)
      .set({ status, updatedAt: new Date() })
      .where(eq(tenants.id, tenantId))
      .returning();
    await audit(tx, {
      tenantId,
      actor,
      action: status === "suspended" ? "tenant.suspended" : "tenant.resumed",
      target: found.slug,
    });
    return row!;
  });
}

export async function setTenantLimits(
  handle: DbHandle,
  tenantId: string,
  input: { monthlyTokenBudget: number | null; rateLimits: TenantRateLimits },
  actor: Actor,
) {
  const found = await getTenantById(handle.platform, tenantId);
  if (!found) throw new AppError("not_found", "That business does not exist.");
  const rateLimits = Object.fromEntries(
    Object.entries(input.rateLimits).filter(([, v]) => typeof v === "number"),
  ) as TenantRateLimits;
  return handle.forTenant(tenantId, async (tx) => {
    await tx
      .update(tenants)
      .set({
        monthlyTokenBudget: input.monthlyTokenBudget,
        rateLimits: Object.keys(rateLimits).length > 0 ? rateLimits : null,
        updatedAt: new Date(),
      })
      .where(eq(tenants.id, tenantId));
    await audit(tx, {
      tenantId,
      actor,
      action: "tenant.limits_changed",
      target: found.slug,
      details: { monthlyTokenBudget: input.monthlyTokenBudget, rateLimits },
    });
  });
}
