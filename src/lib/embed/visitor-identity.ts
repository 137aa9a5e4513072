import "server-only";
import { assertRole, auditedTx, type TenantContext } from "@/lib/auth/access";
import {
  getIdentityStatus,
  type IdentityStatus,
  saveIdentityRequired,
  saveIdentitySecret,
} from "@/lib/db/queries/visitor-identity";
import { AppError } from "@/lib/errors";
import { newIdentitySecret, sealIdentitySecret } from "@/lib/security/visitor-identity";

// The Site & embed page's verified-visitor settings, for owners only: the identity secret signs tokens that
// vouch for a signed-in person, so whoever holds it can speak as any of the business's customers. The secret
// is returned once, by the call that makes it; afterwards only whether one exists (and since when) is read.

/** Whether a secret exists and the switch; anyone in the business may see these. */
export async function visitorIdentityStatus(ctx: TenantContext): Promise<IdentityStatus> {
  const status = await ctx.db.forTenant(ctx.tenant.id, (tx) => getIdentityStatus(tx, ctx.tenant.id));
  if (!status) throw new AppError("not_found", "This business does not exist.");
  return status;
}

/** Makes a new identity secret, shown this once; tokens signed with the previous one stop working at once. */
export async function rotateVisitorIdentitySecret(ctx: TenantContext): Promise<{ secret: string }> {
  assertRole(ctx, "owner");
  const secret = newIdentitySecret();
  await auditedTx(ctx, async (tx, record) => {
    const before = await getIdentityStatus(tx, ctx.tenant.id);
    await saveIdentitySecret(tx, ctx.tenant.id, sealIdentitySecret(secret, ctx.tenant.id));
    await record(before?.secretSetAt ? "visitor_identity.secret_rotated" : "visitor_identity.secret_created");
  });
  return { secret };
}

/** Removes the secret: every visitor is anonymous again, and a page still sending tokens is refused. */
export async function removeVisitorIdentitySecret(ctx: TenantContext): Promise<void> {
  assertRole(ctx, "owner");
  await auditedTx(ctx, async (tx, record) => {
    const before = await getIdentityStatus(tx, ctx.tenant.id);
    if (!before?.secretSetAt) throw new AppError("not_found", "There is no identity secret to remove.");
    await saveIdentitySecret(tx, ctx.tenant.id, null);
    await record("visitor_identity.secret_removed");
  });
}

/** The switch "require a verified visitor for packs that ask for one". */
export async function setVisitorIdentityRequired(ctx: TenantContext, required: boolean): Promise<void> {
  assertRole(ctx, "owner");
  await auditedTx(ctx, async (tx, record) => {
    if (await saveIdentityRequired(tx, ctx.tenant.id, required))
      await record("visitor_identity.required_changed", { details: { required } });
  });
}
