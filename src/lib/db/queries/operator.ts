import "server-only";
import { asc, eq, sql } from "drizzle-orm";
import { isUuid } from "@/shared/parse";
import type { Db, TenantTx } from "../client";
import {
  invitations,
  memberships,
  type TenantRateLimits,
  type TenantStatus,
  tenants,
  usageMonthly,
} from "../schema";
import { usageMonth } from "./usage";

// What the operator's pages read across tenants, and the tenant-row updates of src/lib/tenants/operator.ts.

export type TenantOverview = {
  id: string;
  slug: string;
  name: string;
  status: TenantStatus;
  /** The business's own time zone, for dates in its mails. */
  timeZone: string;
  members: number;
  /** Invitations still open (not accepted, revoked or expired): an invited owner is not a member yet. */
  invited: number;
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
      timeZone: tenants.timeZone,
      members: sql<number>`(select count(*)::int from ${memberships} m where m.tenant_id = ${tenants.id})`,
      invited: sql<number>`(select count(*)::int from ${invitations} i where i.tenant_id = ${tenants.id}
        and i.accepted_at is null and i.revoked_at is null and i.expires_at > now())`,
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

export async function updateTenantStatus(tx: TenantTx, tenantId: string, status: TenantStatus) {
  const [row] = await tx
    .update(tenants)
    .set({ status, updatedAt: new Date() })
    .where(eq(tenants.id, tenantId))
    .returning();
  return row ?? null;
}

export async function updateTenantLimits(
  tx: TenantTx,
  tenantId: string,
  input: { monthlyTokenBudget: number | null; rateLimits: TenantRateLimits | null },
): Promise<void> {
  await tx
    .update(tenants)
    .set({
      monthlyTokenBudget: input.monthlyTokenBudget,
      rateLimits: input.rateLimits,
      updatedAt: new Date(),
    })
    .where(eq(tenants.id, tenantId));
}

/** The business's knowledge limits; a website source over the new page cap is brought down to it. */
export async function updateKnowledgeLimits(
  tx: TenantTx,
  tenantId: string,
  input: { uploadQuota: number; pageCap: number },
): Promise<void> {
  await tx
    .update(tenants)
    .set({ knowledgeUploadQuota: input.uploadQuota, knowledgePageCap: input.pageCap, updatedAt: new Date() })
    .where(eq(tenants.id, tenantId));
  await tx.execute(
    sql`update knowledge_sources set page_cap = least(page_cap, ${input.pageCap}) where kind = 'website'`,
  );
}
