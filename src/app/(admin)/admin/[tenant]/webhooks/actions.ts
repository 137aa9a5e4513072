"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { z } from "zod";
import { tenantAction } from "@/lib/auth/guard";
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  endpointFormSchema,
  redeliverWebhook,
  rollWebhookSecret,
  setWebhookEndpointEnabled,
  updateWebhookEndpoint,
} from "@/lib/webhooks/endpoints";

// Webhooks are for owners and admins: endpoint URLs are often capabilities (anyone holding a Zapier hook URL
// can post to it), so viewers neither see nor change them.

const endpointId = z.uuid({ error: "Unknown endpoint" });
const deliveryId = z.uuid({ error: "Unknown delivery" });

const refresh = (slug: string) => revalidatePath(`/admin/${slug}`, "layout");

export const createEndpointAction = tenantAction("admin", endpointFormSchema, async (ctx, input) => {
  const result = await createWebhookEndpoint(ctx, input);
  if (result.ok) refresh(ctx.tenant.slug);
  return result.ok ? { ...result, values: {} } : result;
});

export const updateEndpointAction = tenantAction(
  "admin",
  endpointFormSchema.extend({ endpointId }),
  async (ctx, input) => {
    const result = await updateWebhookEndpoint(ctx, input.endpointId, input);
    if (result.ok) refresh(ctx.tenant.slug);
    return result;
  },
);

export const setEndpointEnabledAction = tenantAction(
  "admin",
  z.object({ endpointId, enabled: z.enum(["true", "false"]).transform((v) => v === "true") }),
  async (ctx, input) => {
    const result = await setWebhookEndpointEnabled(ctx, input.endpointId, input.enabled);
    if (result.ok) refresh(ctx.tenant.slug);
    return result;
  },
);

export const rollSecretAction = tenantAction("admin", z.object({ endpointId }), async (ctx, input) =>
  rollWebhookSecret(ctx, input.endpointId),
);

export const deleteEndpointAction = tenantAction("admin", z.object({ endpointId }), async (ctx, input) => {
  const result = await deleteWebhookEndpoint(ctx, input.endpointId);
  if (!result.ok) return result;
  refresh(ctx.tenant.slug);
  redirect(`/admin/${ctx.tenant.slug}/webhooks`);
});

export const redeliverAction = tenantAction("admin", z.object({ deliveryId }), async (ctx, input) => {
  const result = await redeliverWebhook(ctx, input.deliveryId);
  if (result.ok) refresh(ctx.tenant.slug);
  return result;
});
