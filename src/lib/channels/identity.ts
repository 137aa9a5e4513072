import "server-only";
import { createHash, randomBytes } from "node:crypto";
import type { SealedSecret } from "../db/schema";
import { openSecret, type SecretKeys, sealSecret } from "../security/secrets";

// Who a person is to the rest of the product, and how a connection's secrets are sealed. The conversation
// and the inbound queue only ever see a hash of the person's number (per connection, so the same number at
// two businesses is two unrelated ids); the number itself stays on the contact row.

/** The visitor id of a person on a channel: its adapter's prefix (`wa`, `tg`) and a hash of connection and address. */
export function channelVisitorId(prefix: string, connectionId: string, address: string): string {
  const h = createHash("sha256").update(`${connectionId}\n${address}`).digest("base64url").slice(0, 32);
  return `${prefix}:${h}`;
}

/** The random part of a webhook URL: 32 bytes, so it cannot be guessed. */
export function newConnectionKey(): string {
  return randomBytes(32).toString("base64url");
}

/** A Telegram webhook secret_token: 1-256 of A-Z a-z 0-9 _ - (Bot API setWebhook). */
export function newWebhookSecret(): string {
  return randomBytes(32).toString("base64url");
}

export type SecretField = "accessToken" | "appSecret" | "verifyToken" | "botToken" | "webhookSecret";

// Bound to the tenant, the connection and the field: a sealed value copied anywhere else does not open.
const aad = (tenantId: string, connectionId: string, field: SecretField) => ({
  tenantId,
  packId: `channel:${connectionId}`,
  key: field,
});

export function sealChannelSecret(
  plain: string,
  tenantId: string,
  connectionId: string,
  field: SecretField,
  keys?: SecretKeys,
): SealedSecret {
  return sealSecret(plain, aad(tenantId, connectionId, field), keys);
}

/** The plain secret, or null when the connection has none for this field. */
export function openChannelSecret(
  secrets: Record<string, SealedSecret>,
  tenantId: string,
  connectionId: string,
  field: SecretField,
): string | null {
  const sealed = secrets[field];
  return sealed ? openSecret(sealed, aad(tenantId, connectionId, field)) : null;
}
