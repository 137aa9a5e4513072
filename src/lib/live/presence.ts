import "server-only";
import { z } from "zod";
import { assertRole, auditedTx, type TenantContext } from "../auth/access";
import { touchPresence } from "../db/queries/live-presence";
import { assignWaiting, wakeAssigned } from "./assign-next";

// An agent's presence: the open console sends a heartbeat every PRESENCE_BEAT_MS (availability.ts), and the
// agent may set themselves away (no new visitors are offered a person on their account, none assigned).
// Only admins and owners answer visitors, so only they are ever online; viewers watch without presence.
// An agent present and not away may be room for a visitor still waiting unassigned: every such beat serves
// the queue (assign-next.ts), so coming online, coming back from away, or a slot a skipped row left free
// is taken up within one beat.

export const presenceSchema = z.object({ away: z.enum(["true", "false"]).optional() });

export async function recordPresence(
  ctx: TenantContext,
  input: z.infer<typeof presenceSchema>,
): Promise<void> {
  assertRole(ctx, "admin");
  const away = input.away === undefined ? undefined : input.away === "true";
  const assigned = await auditedTx(ctx, async (tx, record) => {
    await touchPresence(tx, ctx.tenant.id, ctx.user.id, away);
    // A heartbeat is not worth an entry; choosing to be away (or back) is.
    if (away !== undefined) await record(away ? "live.away" : "live.available");
    return away === true ? [] : assignWaiting(tx, ctx.tenant.id, record);
  });
  wakeAssigned(ctx.tenant.id, assigned);
}
