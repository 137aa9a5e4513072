import "server-only";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { assertRole, auditedTx, type TenantContext } from "../auth/access";
import {
  countEndpoints,
  deleteEndpoint,
  getDelivery,
  getEndpoint,
  insertEndpoint,
  setDeliveryStatus,
  updateEndpoint,
} from "../db/queries/webhooks";
import { AppError } from "../errors";
import { processQueue } from "../queue";
import { checkUrlAtSave, type LookupFn, type SaveCheck } from "../security/url-policy";
import {
  newSigningSecret,
  WEBHOOK_DELIVERY_QUEUE,
  WEBHOOK_EVENT_TYPES,
  type WebhookEventType,
} from "./events";
import type { DeliveryJob } from "./publish";
import { sealSigningSecret } from "./signing";

// The Webhooks page's use cases, for admins and owners: add, edit, switch on/off, delete an endpoint, roll its
// secret, redeliver. The tenant always comes from the guard's context; ids from forms only ever select rows
// under its RLS. Refusals are AppErrors; an address the policy refuses carries a field error on `url`.

export const MAX_ENDPOINTS = 10;

/** The save-time URL policy with a webhook's rules: any public host, the path kept as typed. */
export function checkWebhookUrl(
  url: string,
  opts: { allowHosts?: readonly string[]; lookup?: LookupFn } = {},
): Promise<SaveCheck> {
  return checkUrlAtSave(url, { ...opts, siteDomains: "any", path: "as-typed" });
}

async function acceptedUrl(url: string, opts: { lookup?: LookupFn }): Promise<string> {
  const checked = await checkWebhookUrl(url, opts);
  if (!checked.ok)
    throw new AppError("invalid_input", "Nothing was saved.", { fieldErrors: { url: [checked.message] } });
  return checked.url;
}

const notFound = () => new AppError("not_found", "This endpoint or delivery does not exist.");

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

/** A signing secret shown once, with the endpoint it signs for. */
export type ShownSecret = { endpointId: string; secret: string };

/** Adds an endpoint; the answer holds its signing secret, the only time it is shown. */
export async function createWebhookEndpoint(
  ctx: TenantContext,
  input: EndpointForm,
  opts: { lookup?: LookupFn } = {},
): Promise<ShownSecret> {
  assertRole(ctx, "admin");
  const url = await acceptedUrl(input.url, opts);
  const tenantId = ctx.tenant.id;
  const secret = newSigningSecret();
  const id = randomUUID();
  await auditedTx(ctx, async (tx, record) => {
    if ((await countEndpoints(tx)) >= MAX_ENDPOINTS)
      throw new AppError("conflict", `A business may have at most ${MAX_ENDPOINTS} endpoints.`);
    const row = await insertEndpoint(tx, {
      id,
      tenantId,
      url,
      description: input.description,
      events: unique(input.events),
      secret: sealSigningSecret(secret, tenantId, id),
    });
    await record("webhook.endpoint_created", {
      target: row.id,
      details: { url: row.url, events: row.events },
    });
  });
  return { endpointId: id, secret };
}

export async function updateWebhookEndpoint(
  ctx: TenantContext,
  endpointId: string,
  input: EndpointForm,
  opts: { lookup?: LookupFn } = {},
): Promise<void> {
  assertRole(ctx, "admin");
  const url = await acceptedUrl(input.url, opts);
  await auditedTx(ctx, async (tx, record) => {
    const updated = await updateEndpoint(tx, endpointId, {
      url,
      description: input.description,
      events: unique(input.events),
    });
    if (!updated) throw notFound();
    await record("webhook.endpoint_updated", {
      target: endpointId,
      details: { url: updated.url, events: updated.events },
    });
  });
}

/** Switches an endpoint on (clearing the platform's notice) or off. */
export async function setWebhookEndpointEnabled(
  ctx: TenantContext,
  endpointId: string,
  enabled: boolean,
): Promise<void> {
  assertRole(ctx, "admin");
  await auditedTx(ctx, async (tx, record) => {
    const updated = await updateEndpoint(tx, endpointId, {
      enabled,
      disabledReason: null,
      disabledAt: enabled ? null : new Date(),
    });
    if (!updated) throw notFound();
    await record(enabled ? "webhook.endpoint_enabled" : "webhook.endpoint_switched_off", {
      target: endpointId,
    });
  });
}

export async function deleteWebhookEndpoint(ctx: TenantContext, endpointId: string): Promise<void> {
  assertRole(ctx, "admin");
  await auditedTx(ctx, async (tx, record) => {
    const row = await getEndpoint(tx, endpointId);
    if (!row || !(await deleteEndpoint(tx, endpointId))) throw notFound();
    await record("webhook.endpoint_deleted", { target: endpointId, details: { url: row.url } });
  });
}

/** A new signing secret, shown once; the old one stops working at once. */
export async function rollWebhookSecret(ctx: TenantContext, endpointId: string): Promise<ShownSecret> {
  assertRole(ctx, "admin");
  const secret = newSigningSecret();
  await auditedTx(ctx, async (tx, record) => {
    const updated = await updateEndpoint(tx, endpointId, {
      secret: sealSigningSecret(secret, ctx.tenant.id, endpointId),
    });
    if (!updated) throw notFound();
    await record("webhook.secret_rolled", { target: endpointId });
  });
  return { endpointId, secret };
}

/** Sends a delivery again (same message id and body, a fresh signature), with a fresh set of retries. */
export async function redeliverWebhook(ctx: TenantContext, deliveryId: string): Promise<void> {
  assertRole(ctx, "admin");
  const tenantId = ctx.tenant.id;
  await auditedTx(ctx, async (tx, record) => {
    const delivery = await getDelivery(tx, deliveryId);
    if (!delivery) throw notFound();
    const endpoint = await getEndpoint(tx, delivery.endpointId);
    if (!endpoint) throw notFound();
    if (!endpoint.enabled) throw new AppError("conflict", "Switch the endpoint on before redelivering.");
    const queue = processQueue();
    if (!queue)
      throw new AppError("unavailable", "Deliveries are not running on this server; try again shortly.");
    await setDeliveryStatus(tx, deliveryId, "pending");
    const job: DeliveryJob = { tenantId, deliveryId, redelivery: true };
    await (await queue).sendIn(tx, WEBHOOK_DELIVERY_QUEUE, job);
    await record("webhook.redelivered", {
      target: deliveryId,
      details: { endpointId: endpoint.id, event: delivery.eventType },
    });
  });
}
