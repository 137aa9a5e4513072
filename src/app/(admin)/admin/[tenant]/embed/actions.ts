"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { tenantAction } from "@/lib/auth/guard";
import { updateSiteDomains } from "@/lib/embed/site-domains";

export const saveDomainsAction = tenantAction(
  "admin",
  z.object({ siteDomains: z.string().max(20_000, "This list is too long").default("") }),
  async (ctx, input) => {
    const { entries, added, removed } = await updateSiteDomains(ctx, input.siteDomains.split(/\r?\n/));
    revalidatePath(`/admin/${ctx.tenant.slug}`, "layout");
    return {
      message: added.length + removed.length > 0 ? "Site domains saved." : "No changes to save.",
      values: { siteDomains: entries.join("\n") },
    };
  },
);
