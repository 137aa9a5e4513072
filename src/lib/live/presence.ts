import "server-only";
import { z } from "zod";
import { assertRole, auditedTx, type TenantContext } from "../auth/access";
import { touchPresence } from "../db/queries/live-presence";
import { assignWaiting, wakeAssigned } from "./transition";

// An agent's presence: the open console sends a heartbeat every PRESENCE_BEAT_MS (availability.ts), and the
// agent may set themselves away (no new visitors are offered a person on their account, none assigned).
// Only admins and owners answer visitors, so only they are ever online; viewers watch without presence.
// Every beat serves the queue (transition.ts): an agent present and not away may be room for a visitor in
// line, so coming online, coming back from away, or a slot a skipped row left free is taken up within one
// beat; an agent going away puts the visitors the round-robin gave them and nobody claimed back in line, and
// any beat finds those of an agent whose console went quiet.

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
    return assignWaiting(tx, ctx.tenant.id, record);
  });
  wakeAssigned(ctx.tenant.id, assigned);
}
