import "server-only";
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import { z } from "zod";

// The widget lives in a third-party iframe, so it cannot rely on cookies. A visitor holds a short-lived bearer
// token instead: a small JSON payload and an HMAC-SHA256 over it, with a key derived from the platform's auth
// secret so that a leaked visitor key never signs admin sessions (and the other way round).

export const VISITOR_TOKEN_TTL_SEC = 60 * 60;
/** Instances' clocks may differ this much: a token is never trusted to live longer than TTL plus this. */
const CLOCK_SKEW_SEC = 5 * 60;
/** An expired token may still be exchanged for a new one this long, so a returning visitor keeps their id. */
export const VISITOR_RENEW_GRACE_SEC = 24 * 60 * 60;

const payloadSchema = z.object({
  v: z.literal(1),
  /** tenant id */
  t: z.uuid(),
  /** visitor id: random, opaque, kept across renewals */
  vid: z.string().regex(/^[A-Za-z0-9_-]{16,64}$/),
  /** expiry, unix seconds */
  exp: z.number().int().positive(),
});

export type VisitorClaims = { tenantId: string; visitorId: string; expiresAt: Date };

export type VerifyResult =
  | { ok: true; claims: VisitorClaims }
  | { ok: false; reason: "malformed" | "signature" | "expired" | "tenant"; claims?: VisitorClaims };

// The derived key of the last secret seen: every widget request verifies a token, and deriving it each time
// was measurable CPU (npm run bench). One entry: a process has one MICHI_AUTH_SECRET (tests may switch it).
let derived: { secret: string; key: Buffer } | null = null;

function signingKey(authSecret: string): Buffer {
  if (derived?.secret !== authSecret) {
    derived = {
      secret: authSecret,
      key: Buffer.from(hkdfSync("sha256", authSecret, "michi-chat", "visitor-token", 32)),
    };
  }
  return derived.key;
}

function mac(authSecret: string, body: string): Buffer {
  return createHmac("sha256", signingKey(authSecret)).update(body).digest();
}

export function newVisitorId(): string {
  return randomBytes(16).toString("base64url");
}

export function signVisitorToken(
  authSecret: string,
  input: { tenantId: string; visitorId?: string; now?: Date; ttlSec?: number },
): { token: string; claims: VisitorClaims } {
  const now = input.now ?? new Date();
  const exp = Math.floor(now.getTime() / 1000) + (input.ttlSec ?? VISITOR_TOKEN_TTL_SEC);
  const payload = payloadSchema.parse({
    v: 1,
    t: input.tenantId,
    vid: input.visitorId ?? newVisitorId(),
    exp,
  });
  const body = Buffer.from(JSON.stringify(payload)).toString("base64url");
  const token = `${body}.${mac(authSecret, body).toString("base64url")}`;
  return { token, claims: { tenantId: payload.t, visitorId: payload.vid, expiresAt: new Date(exp * 1000) } };
}

/** Checks signature, tenant binding and expiry. A failed check still reports the claims when the signature held. */
export function verifyVisitorToken(
  authSecret: string,
  token: string,
  tenantId: string,
  now: Date = new Date(),
): VerifyResult {
  if (token.length > 512) return { ok: false, reason: "malformed" };
  const [body, sig, extra] = token.split(".");
  if (!body || !sig || extra !== undefined) return { ok: false, reason: "malformed" };
  const given = Buffer.from(sig, "base64url");
  const expected = mac(authSecret, body);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: "signature" };
  }
  // The signature held, so this payload is one signVisitorToken wrote (and checked with payloadSchema): only
  // its shape is confirmed here, without running the schema again on every widget request.
  let payload: z.infer<typeof payloadSchema>;
  try {
    payload = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
  } catch {
    return { ok: false, reason: "malformed" };
  }
  if (
    payload?.v !== 1 ||
    typeof payload.t !== "string" ||
    typeof payload.vid !== "string" ||
    typeof payload.exp !== "number"
  ) {
    return { ok: false, reason: "malformed" };
  }
  // The expiry is bounded, not only checked to be a number: a payload signed with the secret (a leaked key, a
  // signing bug) must not make a token that never expires ("exp": 1e308), nor one past what any token is given.
  const nowSec = now.getTime() / 1000;
  if (!Number.isSafeInteger(payload.exp) || payload.exp > nowSec + VISITOR_TOKEN_TTL_SEC + CLOCK_SKEW_SEC) {
    return { ok: false, reason: "malformed" };
  }
  const claims = { tenantId: payload.t, visitorId: payload.vid, expiresAt: new Date(payload.exp * 1000) };
  if (payload.t !== tenantId) return { ok: false, reason: "tenant" };
  if (payload.exp * 1000 <= now.getTime()) return { ok: false, reason: "expired", claims };
  return { ok: true, claims };
}

/** The visitor id to keep when renewing: from a valid token, or one that expired within the grace period. */
export function renewableVisitorId(
  authSecret: string,
  token: string | null,
  tenantId: string,
  now: Date = new Date(),
): string | undefined {
  if (!token) return undefined;
  const r = verifyVisitorToken(authSecret, token, tenantId, now);
  if (r.ok) return r.claims.visitorId;
  if (r.reason === "expired" && r.claims) {
    const age = (now.getTime() - r.claims.expiresAt.getTime()) / 1000;
    if (age <= VISITOR_RENEW_GRACE_SEC) return r.claims.visitorId;
  }
  return undefined;
}

/** The token of an `Authorization: Bearer …` header, or null. */
export function bearerToken(headers: Headers): string | null {
  const h = headers.get("authorization");
  const m = h?.match(/^Bearer\s+([A-Za-z0-9_.-]+)\s*$/i);
  return m?.[1] ?? null;
}
