import "server-only";
import type { DbHandle } from "../db/client";
import { forTenantAudited } from "../db/queries/audit";
import {
  getDelivery,
  getEndpoint,
  recordAttempt,
  setDeliveryStatus,
  switchOffEndpoint,
} from "../db/queries/webhooks";
import { log } from "../log";
import type { QueueJob } from "../queue";
import type { WebhookPoster } from "../security/webhook-post";
import type { DeliveryJob } from "./publish";
import { openSigningSecret, signedHeaders } from "./signing";

// One attempt of one delivery, run by the queue. The network call happens between two short tenant
// transactions, never inside one. A failed attempt throws, so the queue retries it after its backoff; the
// last failed attempt (retries exhausted: the receiver failed for more than a day in production) switches the
// endpoint off and leaves a notice for the admin.

export type DisabledNotice = { tenantId: string; endpointId: string; url: string; reason: string };

export type DeliverDeps = {
  poster: WebhookPoster;
  /** Told once when an endpoint is switched off (the admin e-mail); a failure here is only logged. */
  onDisabled?: (notice: DisabledNotice) => Promise<void>;
  now?: () => Date;
};

export class DeliveryAttemptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DeliveryAttemptError";
  }
}

export async function deliverWebhook(
  db: DbHandle,
  job: QueueJob<DeliveryJob>,
  deps: DeliverDeps,
): Promise<void> {
  const { tenantId, deliveryId } = job.data;
  const prepared = await db.forTenant(tenantId, async (tx) => {
    const delivery = await getDelivery(tx, deliveryId);
    // Deleted with its endpoint, or already delivered by an earlier run of this job: nothing to do, and no
    // retry. A redelivery is sent anyway: the admin may click while the first attempt is still being recorded.
    if (!delivery || (delivery.status === "delivered" && !job.data.redelivery)) return null;
    const endpoint = await getEndpoint(tx, delivery.endpointId);
    if (!endpoint) return null;
    if (!endpoint.enabled) {
      await setDeliveryStatus(tx, deliveryId, "failed", "not sent: the endpoint is switched off");
      return null;
    }
    return { delivery, endpoint };
  });
  if (!prepared) return;
  const { delivery, endpoint } = prepared;
  const secret = openSigningSecret(endpoint.secret, tenantId, endpoint.id);
  const body = JSON.stringify(delivery.payload);
  const headers = signedHeaders(secret, delivery.messageId, body, (deps.now ?? (() => new Date()))());
  const outcome = await deps.poster.post(endpoint.url, body, headers);

  const last = !outcome.ok && job.retryCount >= job.retryLimit;
  const notice = await forTenantAudited(db, tenantId, null, async (tx, record) => {
    await recordAttempt(tx, deliveryId, {
      status: outcome.ok ? "delivered" : last ? "failed" : "retrying",
      statusCode: outcome.status,
      error: outcome.ok ? null : outcome.error,
    });
    if (!last) return null;
    const attempts = delivery.attempts + 1;
    const reason = `Switched off after ${attempts} failed attempts to deliver ${delivery.eventType} (last: ${outcome.ok ? "" : outcome.error}).`;
    // Conditional, so two deliveries failing for good at the same moment switch it off (and tell) once.
    if (!(await switchOffEndpoint(tx, endpoint.id, reason))) return null;
    await record("webhook.endpoint_disabled", {
      target: endpoint.id,
      details: { url: endpoint.url, attempts },
    });
    return { tenantId, endpointId: endpoint.id, url: endpoint.url, reason } satisfies DisabledNotice;
  });
  if (notice && deps.onDisabled) {
    await deps
      .onDisabled(notice)
      .catch((err: Error) =>
        log().warn(
          { tenantId, endpointId: notice.endpointId, err: err.message },
          "webhook disable notice failed",
        ),
      );
  }
  if (!outcome.ok) throw new DeliveryAttemptError(outcome.error);
}
