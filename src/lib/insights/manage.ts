import "server-only";
import { z } from "zod";
import { assertRole, auditedTx, type TenantContext } from "../auth/access";
import { deleteConversationRow } from "../db/queries/insights-transcript";
import { RETENTION_MAX_DAYS, RETENTION_MIN_DAYS, setRetentionDays } from "../db/queries/retention";
import { setKindRetention } from "../db/queries/retention-kinds";
import { AppError } from "../errors";

// The two changes the Insights pages make, for admins and owners, apart from Next so tests can call them with
// a TenantContext.

export const deleteConversationSchema = z.object({ id: z.uuid("Not a conversation id.") });

/** Deletes one conversation (a visitor's privacy request) and records who did it. */
export async function deleteConversation(ctx: TenantContext, id: string): Promise<{ messages: number }> {
  assertRole(ctx, "admin");
  return auditedTx(ctx, async (tx, record) => {
    const removed = await deleteConversationRow(tx, ctx.tenant.id, id);
    if (!removed)
      throw new AppError("not_found", "This conversation was not found; it may already be deleted.");
    // The id and a count only: the audit log must not keep the content that was just deleted.
    await record("conversation.deleted", { target: id, details: { messages: removed.messages } });
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
  assertRole(ctx, "admin");
  return auditedTx(ctx, async (tx, record) => {
    const before = await setRetentionDays(tx, ctx.tenant.id, days);
    if (before === null) throw new AppError("not_found", "This business was not found.");
    if (before !== days)
      await record("retention.updated", { target: "retention_days", details: { from: before, to: days } });
    return { from: before, to: days };
  });
}

const optionalDays = (what: string) =>
  z.preprocess(
    (v) => (v === "" || v === undefined || v === null ? null : v),
    z.coerce
      .number({ error: "Enter a number of days, or leave it empty." })
      .int("Enter a whole number of days.")
      .min(RETENTION_MIN_DAYS, `Keep ${what} for at least ${RETENTION_MIN_DAYS} day.`)
      .max(RETENTION_MAX_DAYS, `At most ${RETENTION_MAX_DAYS} days (about ten years).`)
      .nullable(),
  );

export const kindRetentionSchema = z.object({
  leadRetentionDays: optionalDays("contact requests"),
  noteRetentionDays: optionalDays("internal notes"),
});

/** How long contact requests and internal notes are kept (empty: until deleted); the next purge applies it. */
export async function updateKindRetention(
  ctx: TenantContext,
  days: z.infer<typeof kindRetentionSchema>,
): Promise<void> {
  assertRole(ctx, "admin");
  await auditedTx(ctx, async (tx, record) => {
    const before = await setKindRetention(tx, ctx.tenant.id, days);
    if (before === null) throw new AppError("not_found", "This business was not found.");
    await record("retention.kinds_updated", { target: "kinds", details: { from: before, to: days } });
  });
}
