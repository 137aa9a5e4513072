import "server-only";
import { createHash, randomBytes } from "node:crypto";
import { errors, jwtVerify } from "jose";
import type { SealedSecret } from "../db/schema";
import { openSecret, type SecretKeys, sealSecret } from "./secrets";

// Verified visitors (docs/widget.md): the business's own server signs a short JWT (HS256) naming a signed-in
// visitor, with the identity secret the platform made for the business; the widget hands it over with every
// request that needs it, and it is checked here each time against the business's current secret. Nothing
// here decides what a refusal looks like to the visitor: the guard turns the reason into a coded AppError.

/** A token may be signed at most this far ahead: a leaked one must not stay good for long. */
export const IDENTITY_MAX_TTL_SEC = 24 * 60 * 60;
/** The host's server and this one may disagree on the time by this much, both ways. */
export const IDENTITY_CLOCK_SKEW_SEC = 60;
const MAX_TOKEN_CHARS = 4096;

export type IdentityVisitor = { id: string; email?: string; name?: string };

export type IdentityResult =
  | { ok: true; visitor: IdentityVisitor }
  | { ok: false; reason: "expired" | "invalid" | "too_long" | "no_secret" };

/** A new identity secret: its UTF-8 text is the HMAC key, as jose and PyJWT take a string key. */
export function newIdentitySecret(): string {
  return `mvi_${randomBytes(32).toString("base64url")}`;
}

const aad = (tenantId: string) => ({ tenantId, packId: "visitor-identity", key: "secret" });

export function sealIdentitySecret(plain: string, tenantId: string, keys?: SecretKeys): SealedSecret {
  return sealSecret(plain, aad(tenantId), keys);
}

// The opened key of each sealed value seen, so a verified visitor's requests do not decrypt it every time; a
// rotation writes a new sealed value, which misses here. Bounded: one entry per business that uses it.
const opened = new Map<string, Uint8Array>();

function keyOf(sealed: SealedSecret, tenantId: string): Uint8Array {
  const id = `${tenantId}:${sealed.iv}:${sealed.ct}`;
  let key = opened.get(id);
  if (!key) {
    key = new TextEncoder().encode(openSecret(sealed, aad(tenantId)));
    if (opened.size >= 1000) opened.clear();
    opened.set(id, key);
  }
  return key;
}

const text = (v: unknown, max: number) =>
  typeof v === "string" && v.trim() ? v.trim().slice(0, max) : undefined;

/**
 * Checks a host-signed token against the business's current sealed secret: HS256 only, the signature, `exp`
 * required and not past (a minute of skew), no more than 24 hours ahead, and a `sub`.
 */
export async function verifyIdentityToken(
  token: string,
  sealed: SealedSecret | null,
  tenantId: string,
  now: Date = new Date(),
): Promise<IdentityResult> {
  if (!sealed) return { ok: false, reason: "no_secret" };
  if (token.length > MAX_TOKEN_CHARS) return { ok: false, reason: "invalid" };
  try {
    const { payload } = await jwtVerify(token, keyOf(sealed, tenantId), {
      algorithms: ["HS256"],
      clockTolerance: IDENTITY_CLOCK_SKEW_SEC,
      currentDate: now,
      requiredClaims: ["exp", "sub"],
    });
    const nowSec = Math.floor(now.getTime() / 1000);
    if ((payload.exp as number) > nowSec + IDENTITY_MAX_TTL_SEC + IDENTITY_CLOCK_SKEW_SEC)
      return { ok: false, reason: "too_long" };
    const id = text(payload.sub, 200);
    if (!id) return { ok: false, reason: "invalid" };
    const email = text(payload.email, 320);
    const name = text(payload.name, 200);
    return { ok: true, visitor: { id, ...(email ? { email } : {}), ...(name ? { name } : {}) } };
  } catch (err) {
    if (err instanceof errors.JWTExpired) return { ok: false, reason: "expired" };
    return { ok: false, reason: "invalid" };
  }
}

/**
 * The visitor id a verified visitor's conversations are kept under: the same on every device, and no token
 * the platform itself issues can carry it (those ids are 22 random characters).
 */
export function verifiedVisitorId(tenantId: string, sub: string): string {
  return `u_${createHash("sha256").update(`${tenantId}\u0000${sub}`).digest("base64url")}`;
}
