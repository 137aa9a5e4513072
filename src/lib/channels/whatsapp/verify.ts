import "server-only";
import { createHmac, timingSafeEqual } from "node:crypto";
import { sameSecret } from "../wire";

// Meta signs every webhook POST with the app secret: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw
// body>` (https://developers.facebook.com/docs/graph-api/webhooks/getting-started#validate-payloads). The HMAC
// is over the bytes as they arrived: re-serialised JSON differs (escaped unicode, key order), so the route
// hands us the raw body before anything parses it.

const HEX_SHA256 = /^sha256=([0-9a-f]{64})$/i;

/** True only when `header` is a well-formed `sha256=` HMAC of `rawBody` under `appSecret`, compared in constant time. */
export function verifyWhatsAppSignature(
  rawBody: Uint8Array,
  header: string | null,
  appSecret: string,
): boolean {
  if (!header || !appSecret) return false;
  const m = HEX_SHA256.exec(header.trim());
  if (!m) return false;
  const given = Buffer.from(m[1]!, "hex");
  const expected = createHmac("sha256", appSecret).update(rawBody).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * The subscription handshake (`GET ?hub.mode=subscribe&hub.verify_token=…&hub.challenge=…`): the challenge to
 * echo when the token matches, null otherwise. Meta sends no signature on this request, so none is asked for
 * (https://developers.facebook.com/docs/graph-api/webhooks/getting-started#verification-requests).
 */
export function verifyWhatsAppHandshake(query: URLSearchParams, verifyToken: string): string | null {
  if (query.get("hub.mode") !== "subscribe") return null;
  const challenge = query.get("hub.challenge");
  if (!challenge) return null;
  return sameSecret(query.get("hub.verify_token"), verifyToken) ? challenge : null;
}
