import "server-only";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { ActionState, TenantContext } from "../auth/guard";
import { audit } from "../db/queries/audit";
import {
  countEndpoints,
  deleteEndpoint,
  getDelivery,
  getEndpoint,
  insertEndpoint,
  setDeliveryStatus,
  updateEndpoint,
} from "../db/queries/webhooks";
import { env } from "../env";
import { processQueue } from "../queue";
import { checkResolves, checkUrlShape, defaultLookup, type LookupFn, MESSAGES } from "../security/url-policy";
import {
  newSigningSecret,
  WEBHOOK_DELIVERY_QUEUE,
  WEBHOOK_EVENT_TYPES,
  type WebhookEventType,
} from "./events";
import type { DeliveryJob } from "./publish";
import { sealSigningSecret } from "./signing";

// The Webhooks page's use cases: add, edit, switch on/off, delete an endpoint, roll its secret, redeliver.
// The tenant always comes from the guard's context; ids from forms only ever select rows under its RLS.

export const MAX_ENDPOINTS = 10;

/**
 * The packs' URL policy minus the site-domain rule (hooks live at Zapier, Make or a CRM): https, no port, no
 * user info, no IP literal, no query or fragment, a public name that resolves to public addresses only. The
 * operator allowlist relaxes it exactly as for packs. The path is kept as typed: receivers may care.
 */
export async function checkWebhookUrl(
  url: string,
  opts: { allowHosts?: readonly string[]; lookup?: LookupFn } = {},
): Promise<{ ok: true; url: string } | { ok: false; message: string }> {
  const allowHosts = opts.allowHosts ?? env().MICHI_FETCH_ALLOW_HOSTS;
  const shape = checkUrlShape(url, allowHosts);
  if (!shape.ok) return shape;
  const u = shape.url;
  if (u.search || u.hash || url.trim().endsWith("?") || url.trim().endsWith("#"))
    return { ok: false, message: MESSAGES.queryOrFragment };
  if (!shape.allowlisted) {
    const resolved = await checkResolves(shape.host, opts.lookup ?? defaultLookup);
    if (!resolved.ok) return resolved;
  }
  return { ok: true, url: `${u.origin}${u.pathname}` };
}

export const endpointFormSchema = z.object({
  url: z
    .string()
    .trim()
    .min(1, "Enter the address that should receive the events")
    .max(2000, "This address is too long"),
  description: z.string().trim().max(200, "Keep the description under 200 characters").default(""),
  events: z
    .union([z.enum(WEBHOOK_EVENT_TYPES), z.array(z.enum(WEBHOOK_EVENT_TYPES))], {
      error: "Choose at least one event",
    })
    .transform((v) => (Array.isArray(v) ? v : [v]))
    .pipe(z.array(z.enum(WEBHOOK_EVENT_TYPES)).min(1, "Choose at least one event")),
});
export type EndpointForm = z.infer<typeof endpointFormSchema>;

const unique = (events: WebhookEventType[]) => WEBHOOK_EVENT_TYPES.filter((e) => events.includes(e));

/** Adds an endpoint; its signing secret is in `data.secret` of the answer, the only time it is shown. */
export async function createWebhookEndpoint(
  ctx: TenantContext,
  input: EndpointForm,
  opts: { lookup?: LookupFn } = {},
): Promise<ActionState> {
  const checked = await checkWebhookUrl(input.url, opts);
  if (!checked.ok) return { ok: false, message: "Nothing was saved.", fieldErrors: { url: checked.message } };
  const tenantId = ctx.tenant.id;
  const secret = newSigningSecret();
  const id = randomUUID();
  const created = await ctx.db.forTenant(tenantId, async (tx) => {
    const existing = await countEndpoints(tx);
    if (existing >= MAX_ENDPOINTS) return null;
    const row = await insertEndpoint(tx, {
      id,
      tenantId,
      url: checked.url,
      description: input.description,
      events: unique(input.events),
      secret: sealSigningSecret(secret, tenantId, id),
    });
    await audit(tx, {
      tenantId,
      actor: ctx.user,
      action: "webhook.endpoint_created",
      target: row.id,
      details: { url: row.url, events: row.events },
    });
    return row;
  });
  if (!created) return { ok: false, message: `A business may have at most ${MAX_ENDPOINTS} endpoints.` };
  return {
    ok: true,
    message: "Endpoint added. Copy its signing secret now: it will not be shown again.",
    data: { secret, endpointId: created.id },
  };
}

export async function updateWebhookEndpoint(
  ctx: TenantContext,
  endpointId: string,
  input: EndpointForm,
  opts: { lookup?: LookupFn } = {},
): Promise<ActionState> {
  const checked = await checkWebhookUrl(input.url, opts);
  if (!checked.ok) return { ok: false, message: "Nothing was saved.", fieldErrors: { url: checked.message } };
  const tenantId = ctx.tenant.id;
  const row = await ctx.db.forTenant(tenantId, async (tx) => {
    const updated = await updateEndpoint(tx, endpointId, {
      url: checked.url,
      description: input.description,
      events: unique(input.events),
    });
    if (updated)
      await audit(tx, {
        tenantId,
        actor: ctx.user,
        action: "webhook.endpoint_updated",
        target: endpointId,
        details: { url: updated.url, events: updated.events },
      });
    return updated;
  });
  return row ? { ok: true, message: "Endpoint saved." } : notFound();
}

/** Switches an endpoint on (clearing the platform's notice) or off. */
export async function setWebhookEndpointEnabled(
  ctx: TenantContext,
  endpointId: string,
  enabled: boolean,
): Promise<ActionState> {
  const tenantId = ctx.tenant.id;
  const row = await ctx.db.forTenant(tenantId, async (tx) => {
    const updated = await updateEndpoint(tx, endpointId, {
      enabled,
      disabledReason: null,
      disabledAt: enabled ? null : new Date(),
    });
    if (updated)
      await audit(tx, {
        tenantId,
        actor: ctx.user,
        action: enabled ? "webhook.endpoint_enabled" : "webhook.endpoint_switched_off",
        target: endpointId,
      });
    return updated;
  });
  if (!row) return notFound();
  return { ok: true, message: enabled ? "Endpoint switched on." : "Endpoint switched off." };
}

export async function deleteWebhookEndpoint(ctx: TenantContext, endpointId: string): Promise<ActionState> {
  const tenantId = ctx.tenant.id;
  const gone = await ctx.db.forTenant(tenantId, async (tx) => {
    const row = await getEndpoint(tx, endpointId);
    if (!row || !(await deleteEndpoint(tx, endpointId))) return false;
    await audit(tx, {
      tenantId,
      actor: ctx.user,
      action: "webhook.endpoint_deleted",
      target: endpointId,
      details: { url: row.url },
    });
    return true;
  });
  return gone ? { ok: true, message: "Endpoint deleted." } : notFound();
}

/** A new signing secret, shown once; the old one stops working at once. */
export async function rollWebhookSecret(ctx: TenantContext, endpointId: string): Promise<ActionState> {
  const tenantId = ctx.tenant.id;
  const secret = newSigningSecret();
  const row = await ctx.db.forTenant(tenantId, async (tx) => {
    const updated = await updateEndpoint(tx, endpointId, {
      secret: sealSigningSecret(secret, tenantId, endpointId),
    });
    if (updated)
      await audit(tx, { tenantId, actor: ctx.user, action: "webhook.secret_rolled", target: endpointId });
    return updated;
  });
  if (!row) return notFound();
  return {
    ok: true,
    message: "New signing secret created. Copy it now: it will not be shown again.",
    data: { secret, endpointId },
  };
}

/** Sends a delivery again (same message id and body, a fresh signature), with a fresh set of retries. */
export async function redeliverWebhook(ctx: TenantContext, deliveryId: string): Promise<ActionState> {
  const tenantId = ctx.tenant.id;
  const result = await ctx.db.forTenant(tenantId, async (tx) => {
    const delivery = await getDelivery(tx, deliveryId);
    if (!delivery) return "missing" as const;
    const endpoint = await getEndpoint(tx, delivery.endpointId);
    if (!endpoint) return "missing" as const;
    if (!endpoint.enabled) return "off" as const;
    const queue = processQueue();
    if (!queue) return "no-queue" as const;
    await setDeliveryStatus(tx, deliveryId, "pending");
    const job: DeliveryJob = { tenantId, deliveryId, redelivery: true };
    await (await queue).sendIn(tx, WEBHOOK_DELIVERY_QUEUE, job);
    await audit(tx, {
      tenantId,
      actor: ctx.user,
      action: "webhook.redelivered",
      target: deliveryId,
      details: { endpointId: endpoint.id, event: delivery.eventType },
    });
    return "queued" as const;
  });
  if (result === "missing") return notFound();
  if (result === "off") return { ok: false, message: "Switch the endpoint on before redelivering." };
  if (result === "no-queue")
    return { ok: false, message: "Deliveries are not running on this server; try again shortly." };
  return { ok: true, message: "Queued for delivery again." };
}

function notFound(): ActionState {
  return { ok: false, message: "This endpoint or delivery does not exist." };
}
