"use server";

import { redirect } from "next/navigation";
import { tenantAction } from "@/lib/auth/guard";
import { eraseVisitorData, eraseVisitorSchema } from "@/lib/privacy/erase";

// Erasing is for admins and owners; the guard refuses a viewer, and eraseVisitorData checks again. Afterwards
// the page opens without the handle in its address, saying how much was erased.
export const eraseVisitorAction = tenantAction("admin", eraseVisitorSchema, async (ctx, input) => {
  const { counts } = await eraseVisitorData(ctx, input);
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  redirect(`/admin/${ctx.tenant.slug}/privacy?erased=${total}`);
});
