import "server-only";
import { Webhook } from "standardwebhooks";
import type { SealedSecret } from "../db/schema";
import { openSecret, type SecretKeys, sealSecret } from "../security/secrets";

// The signing secret of an endpoint is sealed like a pack secret (AES-256-GCM under MICHI_SECRET_KEY), bound
// to its tenant and endpoint, so a sealed value copied to another row does not open.

const aad = (tenantId: string, endpointId: string) => ({
  tenantId,
  packId: "webhook-endpoint",
  key: endpointId,
});

export function sealSigningSecret(plain: string, tenantId: string, endpointId: string, keys?: SecretKeys) {
  return sealSecret(plain, aad(tenantId, endpointId), keys);
}

export function openSigningSecret(
  sealed: SealedSecret,
  tenantId: string,
  endpointId: string,
  keys?: SecretKeys,
) {
  return openSecret(sealed, aad(tenantId, endpointId), keys);
}

/** The three Standard Webhooks headers for one attempt (the timestamp is the attempt's, in seconds). */
export function signedHeaders(
  secret: string,
  messageId: string,
  body: string,
  at: Date,
): Record<string, string> {
  return {
    "webhook-id": messageId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(messageId, at, body),
  };
}
