import "server-only";
import { z } from "zod";
import { assertRole, auditedTx, type TenantContext } from "../auth/access";
import { setLeadStatus } from "../db/queries/leads";
import { AppError } from "../errors";

// The Inbox's one change: an admin marks a request handled (who and when are kept) or opens it again.

export const leadStatusSchema = z.object({
  id: z.uuid("Not a request id."),
  status: z.enum(["new", "handled"]),
});

export async function setLeadHandled(
  ctx: TenantContext,
  input: z.infer<typeof leadStatusSchema>,
): Promise<void> {
  assertRole(ctx, "admin");
  await auditedTx(ctx, async (tx, record) => {
    const before = await setLeadStatus(tx, ctx.tenant.id, input.id, input.status, ctx.user);
    if (!before) throw new AppError("not_found", "This request was not found.");
    if (before.status !== input.status)
      // The id and the change only: the audit log keeps no contact details.
      await record(input.status === "handled" ? "lead.handled" : "lead.reopened", { target: input.id });
  });
}
