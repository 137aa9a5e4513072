"use server";

import { revalidatePath } from "next/cache";
import { tenantAction } from "@/lib/auth/guard";
import {
  kindRetentionSchema,
  retentionSchema,
  updateKindRetention,
  updateRetention,
} from "@/lib/insights/manage";
import { timeZoneSchema, updateTimeZone } from "@/lib/tenants/time-zone";

export const saveRetentionAction = tenantAction("admin", retentionSchema, async (ctx, input) => {
  const { from, to } = await updateRetention(ctx, input.retentionDays);
  revalidatePath(`/admin/${ctx.tenant.slug}/settings`);
  return {
    message:
      from === to
        ? `Conversations are kept for ${to} days.`
        : `Saved: conversations are now kept for ${to} days. The next purge applies it.`,
  };
});

export const saveTimeZoneAction = tenantAction("admin", timeZoneSchema, async (ctx, input) => {
  const { to } = await updateTimeZone(ctx, input.timeZone);
  // Every page's dates change with it.
  revalidatePath(`/admin/${ctx.tenant.slug}`, "layout");
  return { message: `Dates are now shown in ${to.replaceAll("_", " ")}.` };
});

export const saveKindRetentionAction = tenantAction("admin", kindRetentionSchema, async (ctx, input) => {
  await updateKindRetention(ctx, input);
  revalidatePath(`/admin/${ctx.tenant.slug}/settings`);
  return { message: "Saved. The next purge applies it." };
});
