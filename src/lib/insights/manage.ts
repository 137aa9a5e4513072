import "server-only";
import { z } from "zod";
import { roleAtLeast, type TenantContext } from "../auth/access";
import { audit } from "../db/queries/audit";
import { deleteConversationRow } from "../db/queries/insights-transcript";
import { RETENTION_MAX_DAYS, RETENTION_MIN_DAYS, setRetentionDays } from "../db/queries/retention";
import { AppError } from "../errors";

// The two changes the Insights pages make, apart from Next so tests can call them with a TenantContext.
// The server actions already require admin; the role is checked again here so no other caller can skip it.

function requireAdmin(ctx: TenantContext, what: string) {
  if (!roleAtLeast(ctx.role, "admin"))
    throw new AppError("forbidden", `Only an admin or owner can ${what}. Your role is ${ctx.role}.`);
}

export const deleteConversationSchema = z.object({ id: z.uuid("Not a conversation id.") });

/** Deletes one conversation (a visitor's privacy request) and records who did it. */
export async function deleteConversation(ctx: TenantContext, id: string): Promise<{ messages: number }> {
  requireAdmin(ctx, "delete conversations");
  return ctx.db.forTenant(ctx.tenant.id, async (tx) => {
    const removed = await deleteConversationRow(tx, ctx.tenant.id, id);
    if (!removed)
      throw new AppError("not_found", "This conversation was not found; it may already be deleted.");
    // The id and a count only: the audit log must not keep the content that was just deleted.
    await audit(tx, {
      tenantId: ctx.tenant.id,
      actor: ctx.user,
      action: "conversation.deleted",
      target: id,
      details: { messages: removed.messages },
    });
    return removed;
  });
}

export const retentionSchema = z.object({
  retentionDays: z.coerce
    .number({ error: "Enter a number of days." })
    .int("Enter a whole number of days.")
    .min(RETENTION_MIN_DAYS, `Keep conversations for at least ${RETENTION_MIN_DAYS} day.`)
    .max(RETENTION_MAX_DAYS, `At most ${RETENTION_MAX_DAYS} days (about ten years).`),
});

/** Changes how long the tenant's conversations are kept; the next purge applies it. */
export async function updateRetention(
  ctx: TenantContext,
  days: number,
): Promise<{ from: number; to: number }> {
  requireAdmin(ctx, "change how long conversations are kept");
  return ctx.db.forTenant(ctx.tenant.id, async (tx) => {
    const before = await setRetentionDays(tx, ctx.tenant.id, days);
    if (before === null) throw new AppError("not_found", "This business was not found.");
    if (before !== days)
      await audit(tx, {
        tenantId: ctx.tenant.id,
        actor: ctx.user,
        action: "retention.updated",
        target: "retention_days",
        details: { from: before, to: days },
      });
    return { from: before, to: days };
  });
}
