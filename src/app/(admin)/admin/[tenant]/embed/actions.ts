"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { tenantAction } from "@/lib/auth/guard";
import { saveDomainsForm } from "@/lib/embed/site-domains";

export const saveDomainsAction = tenantAction(
  "admin",
  z.object({ siteDomains: z.string().max(20_000, "This list is too long").default("") }),
  async (ctx, input) => {
    const result = await saveDomainsForm(ctx, input.siteDomains);
    if (result.ok !== false) revalidatePath(`/admin/${ctx.tenant.slug}`, "layout");
    return result;
  },
);
