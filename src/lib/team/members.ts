import "server-only";
import { findOrCreateUser } from "../accounts/users";
import type { TenantContext } from "../auth/access";
import { generatePassword } from "../auth/password";
import { audit } from "../db/queries/audit";
import {
  countOwners,
  deleteMember,
  getMember,
  insertMember,
  lockTeam,
  updateMemberRole,
} from "../db/queries/members";
import { deleteTenantRow } from "../db/queries/tenants";
import type { Role } from "../db/schema";
import { AppError } from "../errors";
import { log } from "../log";
import { limiter } from "../security/rate-limit";

// Team changes for the tenant in `ctx` (the guard has already checked the caller is an owner). The target
// member is looked up inside the tenant's own transaction, so an id from another tenant matches nothing.
// Inside forTenant only `tx` is used: PGlite has one connection, and a platform query there would wait forever.

const LAST_OWNER = "A business needs at least one owner. Make someone else an owner first.";

// Adding members is how an owner could probe which e-mails have accounts; a ceiling per owner bounds that.
const ADDS_PER_HOUR = 20;
const addsPerOwner = () =>
  limiter({ keyPrefix: "team_add_user", points: ADDS_PER_HOUR, durationSec: 60 * 60 });

/**
 * Adds a member, creating their account when the e-mail has none. The answer is the same either way, a
 * one-time password included: it signs in a new account, and a person who already had one ignores it (it is
 * not stored for them). So the owner learns nothing about other people's accounts from the answer.
 */
export async function addMember(
  ctx: TenantContext,
  input: { email: string; role: Role },
): Promise<{ email: string; oneTimePassword: string }> {
  const wait = await addsPerOwner().take(ctx.user.id);
  if (wait !== null)
    throw new AppError(
      "rate_limited",
      `You have added many members in a short time. Try again in ${Math.ceil(wait / 60)} minutes.`,
      { retryAfterSec: wait },
    );
  const found = await findOrCreateUser(ctx.db.platform, input.email);
  const { user } = found;
  const oneTimePassword = found.oneTimePassword ?? generatePassword();
  const tenantId = ctx.tenant.id;
  await ctx.db.forTenant(tenantId, async (tx) => {
    await lockTeam(tx, tenantId);
    if (!(await insertMember(tx, tenantId, user.id, input.role)))
      throw new AppError("conflict", `${user.email} is already a member of this business.`, {
        fieldErrors: { email: [`${user.email} is already a member.`] },
      });
    await audit(tx, {
      tenantId,
      actor: ctx.user,
      action: "member.added",
      target: user.email,
      details: { role: input.role },
    });
  });
  return { email: user.email, oneTimePassword };
}

export async function changeRole(ctx: TenantContext, userId: string, role: Role): Promise<void> {
  const tenantId = ctx.tenant.id;
  await ctx.db.forTenant(tenantId, async (tx) => {
    await lockTeam(tx, tenantId);
    const member = await getMember(tx, tenantId, userId);
    if (!member) throw new AppError("not_found", "That person is not a member of this business.");
    if (member.role === role) return;
    if (member.role === "owner" && (await countOwners(tx, tenantId)) <= 1)
      throw new AppError("conflict", LAST_OWNER);
    await updateMemberRole(tx, tenantId, userId, role);
    await audit(tx, {
      tenantId,
      actor: ctx.user,
      action: "member.role_changed",
      target: member.email,
      details: { from: member.role, to: role },
    });
  });
}

export async function removeMember(ctx: TenantContext, userId: string): Promise<void> {
  const tenantId = ctx.tenant.id;
  await ctx.db.forTenant(tenantId, async (tx) => {
    await lockTeam(tx, tenantId);
    const member = await getMember(tx, tenantId, userId);
    if (!member) throw new AppError("not_found", "That person is not a member of this business.");
    if (member.role === "owner" && (await countOwners(tx, tenantId)) <= 1)
      throw new AppError("conflict", LAST_OWNER);
    await deleteMember(tx, tenantId, userId);
    await audit(tx, {
      tenantId,
      actor: ctx.user,
      action: "member.removed",
      target: member.email,
      details: { role: member.role },
    });
  });
}

/**
 * Deletes the tenant and everything it owns (cascades). The tenant role cannot delete tenant rows, so this
 * is platform work, keyed by the id the guard resolved, after the typed slug matched.
 */
export async function deleteTenant(ctx: TenantContext, typedSlug: string): Promise<void> {
  if (typedSlug.trim() !== ctx.tenant.slug)
    throw new AppError("invalid_input", "Type the address of the business exactly to confirm.", {
      fieldErrors: { confirm: [`Type ${ctx.tenant.slug} to confirm.`] },
    });
  await deleteTenantRow(ctx.db.platform, ctx.tenant.id);
  log().info({ tenant: ctx.tenant.slug, by: ctx.user.id }, "tenant deleted");
}
