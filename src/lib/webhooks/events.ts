import "server-only";
import { randomBytes, randomUUID } from "node:crypto";
import {
  type VerifiedVisitor,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_TEST_EVENT,
  type WebhookEventType,
} from "../db/schema";

export { WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT, type WebhookEventType };

// What a webhook carries, following the Standard Webhooks specification
// (https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md):
// a JSON body `{ type, timestamp, data }`, signed with the headers webhook-id, webhook-timestamp and
// webhook-signature. docs/webhooks.md shows each event's `data`.

/** The queue that delivers one webhook message to one endpoint. */
export const WEBHOOK_DELIVERY_QUEUE = "webhook-delivery";

export const EVENT_LABELS: Record<WebhookEventType, string> = {
  "lead.created": "A visitor asked for a person (contact form sent)",
  "feedback.created": "A visitor rated an answer",
  "conversation.finished": "A conversation went quiet",
  "handoff.waiting": "A visitor waiting for a person was not claimed in time",
  "visitor.erased": "A visitor's data was erased on request (no personal data in it)",
  "booking.requested": "A visitor sent a booking request (to accept or refuse)",
  "test_run.completed": "A run of the test questions ended",
};

export type WebhookPayload = {
  type: WebhookEventType | typeof WEBHOOK_TEST_EVENT;
  timestamp: string;
  data: Record<string, unknown>;
};

/** A message id in the style of the spec's examples; the same on every attempt, so receivers can dedupe. */
export function newMessageId(): string {
  return `msg_${randomUUID().replaceAll("-", "")}`;
}

/**
 * A signing secret in the spec's format: `whsec_` and base64 of 32 random bytes (the spec asks for 24 to 64).
 * Shown to the admin once, then only ever kept sealed.
 */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

// Payloads carry facts the business owns (a lead's contact details are the point of lead.created), never
// credentials: a key that looks like one is refused at publish time, before anything is stored.
const CREDENTIAL_KEY = /secret|password|passwd|api[_-]?key|authorization|token$/i;

export function findCredentialKey(value: unknown, path = "data"): string | null {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findCredentialKey(value[i], `${path}[${i}]`);
      if (hit) return hit;
    }
    return null;
  }
  if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (CREDENTIAL_KEY.test(k)) return `${path}.${k}`;
      const hit = findCredentialKey(v, `${path}.${k}`);
      if (hit) return hit;
    }
  }
  return null;
}

/**
 * The `visitor` field of an event about a conversation: present only when the business's site vouched for the
 * visitor (a signed identity token), so a receiver never mistakes an anonymous visitor for a known one.
 */
export function visitorField(v: VerifiedVisitor | null | undefined): {
  visitor?: { id: string; email?: string; name?: string; verified: true };
} {
  return v ? { visitor: { id: v.id, email: v.email, name: v.name, verified: true } } : {};
}
