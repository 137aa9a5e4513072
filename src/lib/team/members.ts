import "server-only";
import { assertRole, auditedTx, type TenantContext } from "../auth/access";
import { countOwners, deleteMember, getMember, lockTeam, updateMemberRole } from "../db/queries/members";
import { deleteTenantRow } from "../db/queries/tenants";
import type { Role } from "../db/schema";
import { AppError } from "../errors";
import { log } from "../log";

// Team changes for the tenant in `ctx`, for owners only. The target member is looked up inside the tenant's
// own transaction, so an id from another tenant matches nothing.
// Inside forTenant only `tx` is used: PGlite has one connection, and a platform query there would wait forever.

const LAST_OWNER = "A business needs at least one owner. Make someone else an owner first.";

export async function changeRole(ctx: TenantContext, userId: string, role: Role): Promise<void> {
  assertRole(ctx, "owner");
  const tenantId = ctx.tenant.id;
  await auditedTx(ctx, async (tx, record) => {
    await lockTeam(tx, tenantId);
    const member = await getMember(tx, tenantId, userId);
    if (!member) throw new AppError("not_found", "That person is not a member of this business.");
    if (member.role === role) return;
    if (member.role === "owner" && (await countOwners(tx, tenantId)) <= 1)
      throw new AppError("conflict", LAST_OWNER);
    await updateMemberRole(tx, tenantId, userId, role);
    await record("member.role_changed", { target: member.email, details: { from: member.role, to: role } });
  });
}

export async function removeMember(ctx: TenantContext, userId: string): Promise<void> {
  assertRole(ctx, "owner");
  const tenantId = ctx.tenant.id;
  await auditedTx(ctx, async (tx, record) => {
    await lockTeam(tx, tenantId);
    const member = await getMember(tx, tenantId, userId);
    if (!member) throw new AppError("not_found", "That person is not a member of this business.");
    if (member.role === "owner" && (await countOwners(tx, tenantId)) <= 1)
      throw new AppError("conflict", LAST_OWNER);
    await deleteMember(tx, tenantId, userId);
    await record("member.removed", { target: member.email, details: { role: member.role } });
  });
}

/**
 * Deletes the tenant and everything it owns (cascades). The tenant role cannot delete tenant rows, so this
 * is platform work, keyed by the id the guard resolved, after the typed slug matched.
 */
export async function deleteTenant(ctx: TenantContext, typedSlug: string): Promise<void> {
  assertRole(ctx, "owner");
  if (typedSlug.trim() !== ctx.tenant.slug)
    throw new AppError("invalid_input", "Type the address of the business exactly to confirm.", {
      fieldErrors: { confirm: [`Type ${ctx.tenant.slug} to confirm.`] },
    });
  await deleteTenantRow(ctx.db.platform, ctx.tenant.id);
  log().info({ tenant: ctx.tenant.slug, by: ctx.user.id }, "tenant deleted");
}
