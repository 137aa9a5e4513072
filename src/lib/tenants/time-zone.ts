import "server-only";
import { z } from "zod";
import { isTimeZone } from "@/shared/dates";
import { assertRole, auditedTx, type TenantContext } from "../auth/access";
import { setTimeZone } from "../db/queries/tenants";
import { AppError } from "../errors";

// The business's time zone, in which every date and chart of its admin reads (src/shared/dates.ts).

const PICK = "Choose a time zone from the list.";

export const timeZoneSchema = z.object({ timeZone: z.string().trim().refine(isTimeZone, PICK) });

export async function updateTimeZone(
  ctx: TenantContext,
  timeZone: string,
): Promise<{ from: string; to: string }> {
  assertRole(ctx, "admin");
  if (!isTimeZone(timeZone)) throw new AppError("invalid_input", PICK, { fieldErrors: { timeZone: [PICK] } });
  return auditedTx(ctx, async (tx, record) => {
    const before = await setTimeZone(tx, ctx.tenant.id, timeZone);
    if (before === null) throw new AppError("not_found", "This business was not found.");
    if (before !== timeZone)
      await record("tenant.time_zone_changed", {
        target: "time_zone",
        details: { from: before, to: timeZone },
      });
    return { from: before, to: timeZone };
  });
}
