import "server-only";
import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync } from "node:crypto";

// The photo of a person who joined a visitor's conversation is addressed by an opaque token, so the visitor
// never learns the person's user id (nor anything else that names them besides the name they chose). The
// token is the reference sealed with AES-256-GCM under a key derived from the platform's auth secret: it
// cannot be read or forged, and it names the tenant and the visitor it was made for, so it opens nothing at
// another business's key or with another visitor's token. It is deterministic (the nonce is derived from the
// reference, as in SIV), so the same photo for the same visitor is always the same URL and the browser's
// cache works; a new photo has a new version and so a new URL.

export type AvatarRef = { tenantId: string; visitorId: string; userId: string; version: string };

type Keys = { secret: string; enc: Buffer; nonce: Buffer };
let derived: Keys | null = null;

function keys(authSecret: string): Keys {
  if (derived?.secret !== authSecret) {
    const key = (info: string) => Buffer.from(hkdfSync("sha256", authSecret, "michi-chat", info, 32));
    derived = { secret: authSecret, enc: key("avatar-token-enc"), nonce: key("avatar-token-nonce") };
  }
  return derived;
}

const uuidBytes = (id: string) => Buffer.from(id.replace(/-/g, ""), "hex");
const uuidText = (b: Buffer) => {
  const h = b.toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};
const visitorHash = (visitorId: string) => createHash("sha256").update(visitorId).digest().subarray(0, 8);
const AAD = Buffer.from("michi-avatar-v1");
const VERSION_RE = /^[0-9a-f]{16}$/;

/** Tenant (16 bytes), user (16), version (8), a hash of the visitor id (8); sealed: nonce 12, tag 16. */
export function sealAvatarRef(authSecret: string, ref: AvatarRef): string {
  if (!VERSION_RE.test(ref.version)) throw new Error("avatar version must be 16 hex digits");
  const k = keys(authSecret);
  const plain = Buffer.concat([
    uuidBytes(ref.tenantId),
    uuidBytes(ref.userId),
    Buffer.from(ref.version, "hex"),
    visitorHash(ref.visitorId),
  ]);
  const nonce = createHmac("sha256", k.nonce).update(plain).digest().subarray(0, 12);
  const cipher = createCipheriv("aes-256-gcm", k.enc, nonce);
  cipher.setAAD(AAD);
  const ct = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([nonce, ct, cipher.getAuthTag()]).toString("base64url");
}

/**
 * The reference inside a token, when it is genuine and was made for this tenant and visitor; null otherwise
 * (the caller answers "not found" either way).
 */
export function openAvatarRef(
  authSecret: string,
  token: string,
  expect: { tenantId: string; visitorId: string },
): { userId: string; version: string } | null {
  if (!/^[A-Za-z0-9_-]{102}$/.test(token)) return null;
  const raw = Buffer.from(token, "base64url");
  if (raw.length !== 76) return null;
  let plain: Buffer;
  try {
    const decipher = createDecipheriv("aes-256-gcm", keys(authSecret).enc, raw.subarray(0, 12));
    decipher.setAAD(AAD);
    decipher.setAuthTag(raw.subarray(60));
    plain = Buffer.concat([decipher.update(raw.subarray(12, 60)), decipher.final()]);
  } catch {
    return null;
  }
  if (uuidText(plain.subarray(0, 16)) !== expect.tenantId.toLowerCase()) return null;
  if (!plain.subarray(40, 48).equals(visitorHash(expect.visitorId))) return null;
  return { userId: uuidText(plain.subarray(16, 32)), version: plain.subarray(32, 40).toString("hex") };
}
