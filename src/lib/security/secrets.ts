import "server-only";
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import type { SealedSecret } from "../db/schema/tools";
import { env } from "../env";

// Secret config values (API tokens) are sealed with AES-256-GCM. The additional data binds each ciphertext to
// its tenant, pack and field, so a value copied to another row or field fails to open instead of leaking.
// Each value records the id of the key that sealed it; MICHI_SECRET_KEY_PREVIOUS keeps old values readable
// during a key rotation while new values are sealed with the current key.

export type SecretAad = { tenantId: string; packId: string; key: string };
export type SecretKeys = { current: Buffer; previous?: Buffer };

export class SecretOpenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SecretOpenError";
  }
}

export function keyId(key: Buffer): string {
  return createHash("sha256").update(key).digest("hex").slice(0, 8);
}

function decodeKey(b64: string): Buffer {
  const key = Buffer.from(b64, "base64");
  if (key.length !== 32) throw new Error("secret keys must be 32 bytes");
  return key;
}

export function keysFromEnv(): SecretKeys {
  const e = env();
  return {
    current: decodeKey(e.MICHI_SECRET_KEY),
    previous: e.MICHI_SECRET_KEY_PREVIOUS ? decodeKey(e.MICHI_SECRET_KEY_PREVIOUS) : undefined,
  };
}

function aadBytes(aad: SecretAad): Buffer {
  // A JSON array: no two different triples can produce the same bytes.
  return Buffer.from(JSON.stringify(["michi-secret-v1", aad.tenantId, aad.packId, aad.key]), "utf8");
}

export function sealSecret(plain: string, aad: SecretAad, keys: SecretKeys = keysFromEnv()): SealedSecret {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keys.current, iv);
  cipher.setAAD(aadBytes(aad));
  const ct = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return {
    kid: keyId(keys.current),
    iv: iv.toString("base64"),
    ct: ct.toString("base64"),
    tag: cipher.getAuthTag().toString("base64"),
    setAt: new Date().toISOString(),
  };
}

export function openSecret(sealed: SealedSecret, aad: SecretAad, keys: SecretKeys = keysFromEnv()): string {
  const candidates = [keys.current, keys.previous].filter((k): k is Buffer => !!k);
  const key = candidates.find((k) => keyId(k) === sealed.kid);
  if (!key) throw new SecretOpenError(`no key with id ${sealed.kid} is configured`);
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(sealed.iv, "base64"));
    decipher.setAAD(aadBytes(aad));
    decipher.setAuthTag(Buffer.from(sealed.tag, "base64"));
    return Buffer.concat([decipher.update(Buffer.from(sealed.ct, "base64")), decipher.final()]).toString(
      "utf8",
    );
  } catch {
    throw new SecretOpenError("the secret does not open under this tenant, pack and field");
  }
}

/** True when a value was sealed under the previous key and should be re-sealed on the next save. */
export function needsReseal(sealed: SealedSecret, keys: SecretKeys = keysFromEnv()): boolean {
  return sealed.kid !== keyId(keys.current);
}
