import "server-only";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { assertRole, auditedTx, type TenantContext } from "../auth/access";
import {
  countEndpoints,
  deleteEndpoint,
  getDelivery,
  getEndpoint,
  insertDelivery,
  insertEndpoint,
  setDeliveryStatus,
  updateEndpoint,
} from "../db/queries/webhooks";
import { env } from "../env";
import { AppError } from "../errors";
import { processQueue } from "../queue";
import { checkUrlAtSave, type LookupFn, type SaveCheck } from "../security/url-policy";
import {
  newMessageId,
  newSigningSecret,
  WEBHOOK_DELIVERY_QUEUE,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_TEST_EVENT,
  type WebhookEventType,
  type WebhookPayload,
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

/**
 * Everything wrong with the form at once (the address, by the URL policy, and the events), so the admin fixes
 * it in one go; the address as the policy normalised it when all is well.
 */
async function acceptedForm(input: EndpointForm, opts: { lookup?: LookupFn }): Promise<string> {
  const fieldErrors: Record<string, string[]> = {};
  let url = "";
  if (!input.url) fieldErrors.url = ["Enter the address that should receive the events"];
  else {
    const checked = await checkWebhookUrl(input.url, opts);
    if (checked.ok) url = checked.url;
    else fieldErrors.url = [checked.message];
  }
  if (input.events.length === 0) fieldErrors.events = ["Choose at least one event"];
  if (Object.keys(fieldErrors).length > 0)
    throw new AppError("invalid_input", "Nothing was saved.", { fieldErrors });
  return url;
}

const notFound = () => new AppError("not_found", "This endpoint or delivery does not exist.");

// Shapes only: what must be there (an address, an event) is checked with the URL policy in acceptedForm, so
// every problem is reported at once.
export const endpointFormSchema = z.object({
  url: z.string().trim().max(2000, "This address is too long").default(""),
  description: z.string().trim().max(200, "Keep the description under 200 characters").default(""),
  events: z
    .union([z.enum(WEBHOOK_EVENT_TYPES), z.array(z.enum(WEBHOOK_EVENT_TYPES))], {
      error: "Choose at least one event",
    })
    .optional()
    .transform((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v])),
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
  const url = await acceptedForm(input, opts);
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
  const url = await acceptedForm(input, opts);
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

/** "Send test event": one signed webhook.test to this endpoint alone, listed in its deliveries like any other. */
export async function sendTestWebhook(ctx: TenantContext, endpointId: string): Promise<void> {
  assertRole(ctx, "admin");
  const tenantId = ctx.tenant.id;
  await auditedTx(ctx, async (tx, record) => {
    const endpoint = await getEndpoint(tx, endpointId);
    if (!endpoint) throw notFound();
    if (!endpoint.enabled)
      throw new AppError("conflict", "Switch the endpoint on before sending a test event.");
    const queue = processQueue();
    if (!queue)
      throw new AppError("unavailable", "Deliveries are not running on this server; try again shortly.");
    const messageId = newMessageId();
    const payload: WebhookPayload = {
      type: WEBHOOK_TEST_EVENT,
      timestamp: new Date().toISOString(),
      data: {
        test: {
          endpointId,
          adminUrl: `${env().MICHI_PUBLIC_URL}/admin/${ctx.tenant.slug}/webhooks/${endpointId}`,
        },
      },
    };
    const deliveryId = await insertDelivery(tx, {
      tenantId,
      endpointId,
      messageId,
      eventType: WEBHOOK_TEST_EVENT,
      dedupeKey: messageId,
      payload,
    });
    const job: DeliveryJob = { tenantId, deliveryId: deliveryId! };
    await (await queue).sendIn(tx, WEBHOOK_DELIVERY_QUEUE, job);
    await record("webhook.test_sent", { target: endpointId });
  });
}
