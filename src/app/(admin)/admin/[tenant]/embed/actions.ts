"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { tenantAction } from "@/lib/auth/guard";
import { updateSiteDomains } from "@/lib/embed/site-domains";
import {
  removeVisitorIdentitySecret,
  rotateVisitorIdentitySecret,
  setVisitorIdentityRequired,
} from "@/lib/embed/visitor-identity";

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

// Verified visitors: owners only, since the identity secret lets its holder speak as any signed-in customer.

export const rotateIdentitySecretAction = tenantAction("owner", z.object({}), async (ctx) => ({
  message: "New identity secret created. Copy it now: it will not be shown again.",
  data: await rotateVisitorIdentitySecret(ctx),
}));

export const removeIdentitySecretAction = tenantAction("owner", z.object({}), async (ctx) => {
  await removeVisitorIdentitySecret(ctx);
  revalidatePath(`/admin/${ctx.tenant.slug}`, "layout");
  return { message: "Identity secret removed: every visitor is anonymous again." };
});

export const setIdentityRequiredAction = tenantAction(
  "owner",
  z.object({ required: z.enum(["true", "false"]).transform((v) => v === "true") }),
  async (ctx, input) => {
    await setVisitorIdentityRequired(ctx, input.required);
    revalidatePath(`/admin/${ctx.tenant.slug}`, "layout");
    return {
      message: input.required
        ? "Packs that ask for a verified visitor are now offered to verified visitors only."
        : "Packs that ask for a verified visitor are now offered to every visitor.",
    };
  },
);
