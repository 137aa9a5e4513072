import "server-only";
import type { TenantTx } from "../db/client";
import { endpointsFor, insertDelivery, replacePendingPayload } from "../db/queries/webhooks";
import { processQueue } from "../queue";
import {
  findCredentialKey,
  newMessageId,
  WEBHOOK_DELIVERY_QUEUE,
  WEBHOOK_EVENT_TYPES,
  type WebhookEventType,
  type WebhookPayload,
} from "./events";

export type { WebhookEventType };

export type PublishedEvent = {
  tenantId: string;
  type: WebhookEventType;
  /** The event's facts (ids, contact details, a rating); JSON only, and never a credential. */
  data: Record<string, unknown>;
  /**
   * Makes the event idempotent per endpoint: a second publish with the same key is dropped. Defaults to
   * the new message id (every publish is its own event).
   */
  dedupeKey?: string;
  /**
   * When the event happened, if before now (a conversation that went quiet a while ago): an endpoint created
   * after that does not get it, so a new endpoint never receives a backlog of old events.
   */
  occurredAt?: Date;
  /**
   * Held this long before it is sent, and while held, a second publish with the same dedupe key replaces its
   * payload instead of adding an event (a thumbs-down, then its comment: one event). Once sent, a second
   * publish is a new event.
   */
  settleSeconds?: number;
};

/** The job a delivery runs as; the tenant comes from the publishing transaction, never from a request. */
export type DeliveryJob = {
  tenantId: string;
  deliveryId: string;
  /** A redelivery asked for by an admin: sent even if an earlier attempt has (just) succeeded. */
  redelivery?: boolean;
};

/**
 * Publishes a webhook event inside the caller's tenant transaction: one delivery row per enabled endpoint
 * that asked for the type, and one queue job per delivery, all in `tx`. If the caller's write rolls back,
 * nothing is sent; once it commits, the delivery survives restarts until it succeeds or runs out of retries.
 * Cheap when nobody subscribed (one indexed read).
 */
export async function publishEvent(
  tx: TenantTx,
  event: PublishedEvent,
): Promise<{ messageId: string; deliveries: number }> {
  if (!WEBHOOK_EVENT_TYPES.includes(event.type)) throw new Error(`unknown webhook event type ${event.type}`);
  const credential = findCredentialKey(event.data);
  if (credential) throw new Error(`webhook payloads carry no credentials (found ${credential})`);
  const messageId = newMessageId();
  const endpoints = (await endpointsFor(tx, event.type)).filter(
    (e) => !event.occurredAt || e.createdAt.getTime() <= event.occurredAt.getTime(),
  );
  if (endpoints.length === 0) return { messageId, deliveries: 0 };
  const payload: WebhookPayload = {
    type: event.type,
    timestamp: new Date().toISOString(),
    // A round trip through JSON: what is stored is exactly what will be signed and sent.
    data: JSON.parse(JSON.stringify(event.data)) as Record<string, unknown>,
  };
  const pending = processQueue();
  if (!pending)
    throw new Error("the job queue is not running (boot starts it; tests call startWebhookQueue)");
  const queue = await pending;
  let deliveries = 0;
  const settle = event.settleSeconds ?? 0;
  for (const endpoint of endpoints) {
    const row = {
      tenantId: event.tenantId,
      endpointId: endpoint.id,
      messageId,
      eventType: event.type,
      payload,
    };
    const key = event.dedupeKey ?? messageId;
    let deliveryId = await insertDelivery(tx, { ...row, dedupeKey: key });
    if (!deliveryId && settle > 0) {
      // The same event again while the first still waits: it is the same event, told better.
      if (await replacePendingPayload(tx, endpoint.id, key, payload)) continue;
      deliveryId = await insertDelivery(tx, { ...row, dedupeKey: `${key}:${messageId}` });
    }
    if (!deliveryId) continue;
    const job: DeliveryJob = { tenantId: event.tenantId, deliveryId };
    await queue.sendIn(tx, WEBHOOK_DELIVERY_QUEUE, job, { startAfterSeconds: settle });
    deliveries++;
  }
  return { messageId, deliveries };
}
