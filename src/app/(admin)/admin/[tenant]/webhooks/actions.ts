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
  sendTestWebhook,
  setWebhookEndpointEnabled,
  updateWebhookEndpoint,
} from "@/lib/webhooks/endpoints";

// Webhooks are for owners and admins: endpoint URLs are often capabilities (anyone holding a Zapier hook URL
// can post to it), so viewers neither see nor change them.

const endpointId = z.uuid({ error: "Unknown endpoint" });
const deliveryId = z.uuid({ error: "Unknown delivery" });

const refresh = (slug: string) => revalidatePath(`/admin/${slug}`, "layout");

export const createEndpointAction = tenantAction("admin", endpointFormSchema, async (ctx, input) => {
  const shown = await createWebhookEndpoint(ctx, input);
  refresh(ctx.tenant.slug);
  return {
    message: "Endpoint added. Copy its signing secret now: it will not be shown again.",
    data: shown,
    values: {},
  };
});

export const updateEndpointAction = tenantAction(
  "admin",
  endpointFormSchema.extend({ endpointId }),
  async (ctx, input) => {
    await updateWebhookEndpoint(ctx, input.endpointId, input);
    refresh(ctx.tenant.slug);
    return { message: "Endpoint saved." };
  },
);

export const setEndpointEnabledAction = tenantAction(
  "admin",
  z.object({ endpointId, enabled: z.enum(["true", "false"]).transform((v) => v === "true") }),
  async (ctx, input) => {
    await setWebhookEndpointEnabled(ctx, input.endpointId, input.enabled);
    refresh(ctx.tenant.slug);
    return { message: input.enabled ? "Endpoint switched on." : "Endpoint switched off." };
  },
);

export const rollSecretAction = tenantAction("admin", z.object({ endpointId }), async (ctx, input) => ({
  message: "New signing secret created. Copy it now: it will not be shown again.",
  data: await rollWebhookSecret(ctx, input.endpointId),
}));

export const deleteEndpointAction = tenantAction("admin", z.object({ endpointId }), async (ctx, input) => {
  await deleteWebhookEndpoint(ctx, input.endpointId);
  refresh(ctx.tenant.slug);
  redirect(`/admin/${ctx.tenant.slug}/webhooks`);
});

export const redeliverAction = tenantAction("admin", z.object({ deliveryId }), async (ctx, input) => {
  await redeliverWebhook(ctx, input.deliveryId);
  refresh(ctx.tenant.slug);
  return { message: "Queued for delivery again." };
});

export const sendTestEventAction = tenantAction("admin", z.object({ endpointId }), async (ctx, input) => {
  await sendTestWebhook(ctx, input.endpointId);
  refresh(ctx.tenant.slug);
  return { message: "Test event sent to this endpoint; it is listed under Deliveries." };
});
