import { createHmac, hkdfSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  bearerToken,
  renewableVisitorId,
  signVisitorToken,
  VISITOR_TOKEN_TTL_SEC,
  verifyVisitorToken,
} from "@/lib/security/visitor-token";

const secret = "s".repeat(40);
const tenantA = "11111111-1111-4111-8111-111111111111";
const tenantB = "22222222-2222-4222-8222-222222222222";
const t0 = new Date("2025-05-01T10:00:00Z");
const later = (sec: number) => new Date(t0.getTime() + sec * 1000);

describe("visitor tokens", () => {
  it("verify for their tenant until they expire about an hour later", () => {
    const { token, claims } = signVisitorToken(secret, { tenantId: tenantA, now: t0 });
    expect(claims.expiresAt).toEqual(later(VISITOR_TOKEN_TTL_SEC));
    const ok = verifyVisitorToken(secret, token, tenantA, later(60));
    expect(ok).toMatchObject({ ok: true, claims: { tenantId: tenantA, visitorId: claims.visitorId } });
    expect(verifyVisitorToken(secret, token, tenantA, later(VISITOR_TOKEN_TTL_SEC))).toMatchObject({
      ok: false,
      reason: "expired",
    });
  });

  it("are refused for another tenant, with another secret, or when altered", () => {
    const { token } = signVisitorToken(secret, { tenantId: tenantA, now: t0 });
    expect(verifyVisitorToken(secret, token, tenantB, t0)).toMatchObject({ ok: false, reason: "tenant" });
    expect(verifyVisitorToken("o".repeat(40), token, tenantA, t0)).toMatchObject({
      ok: false,
      reason: "signature",
    });
    const [body, sig] = token.split(".");
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(body!, "base64url").toString()), t: tenantB }),
    ).toString("base64url");
    expect(verifyVisitorToken(secret, `${forged}.${sig}`, tenantB, t0)).toMatchObject({
      ok: false,
      reason: "signature",
    });
    expect(verifyVisitorToken(secret, "garbage", tenantA, t0)).toMatchObject({
      ok: false,
      reason: "malformed",
    });
    expect(verifyVisitorToken(secret, `${token}.x`, tenantA, t0)).toMatchObject({
      ok: false,
      reason: "malformed",
    });
  });

  it("are refused as malformed when a validly signed payload is not a token's shape", () => {
    // Signed the way signVisitorToken signs (HKDF of the secret, HMAC-SHA256 over the body): only the
    // payload's shape is wrong, so nothing but the shape check can refuse it.
    const key = Buffer.from(hkdfSync("sha256", secret, "michi-chat", "visitor-token", 32));
    const signed = (payload: unknown) => {
      const body = Buffer.from(JSON.stringify(payload)).toString("base64url");
      return `${body}.${createHmac("sha256", key).update(body).digest("base64url")}`;
    };
    const good = { v: 1, t: tenantA, vid: "abcdefghijklmnop", exp: t0.getTime() / 1000 + 60 };
    expect(verifyVisitorToken(secret, signed(good), tenantA, t0)).toMatchObject({ ok: true });
    for (const bad of [null, { ...good, v: 2 }, { ...good, vid: 7 }, { ...good, exp: "soon" }]) {
      expect(verifyVisitorToken(secret, signed(bad), tenantA, t0)).toMatchObject({
        ok: false,
        reason: "malformed",
      });
    }
  });

  it("are refused when the signed expiry lies further ahead than a token ever lives", () => {
    // A token signed with the secret but claiming a lifetime no token is given (the red-team's exp: 1e308).
    const key = Buffer.from(hkdfSync("sha256", secret, "michi-chat", "visitor-token", 32));
    const signed = (exp: number) => {
      const body = Buffer.from(JSON.stringify({ v: 1, t: tenantA, vid: "abcdefghijklmnop", exp })).toString(
        "base64url",
      );
      return `${body}.${createHmac("sha256", key).update(body).digest("base64url")}`;
    };
    const nowSec = t0.getTime() / 1000;
    for (const exp of [
      1e308,
      Number.MAX_SAFE_INTEGER,
      nowSec + 30 * 24 * 3600,
      nowSec + VISITOR_TOKEN_TTL_SEC + 3600,
      1.5e9 + 0.5,
    ]) {
      expect(verifyVisitorToken(secret, signed(exp), tenantA, t0), String(exp)).toMatchObject({
        ok: false,
        reason: "malformed",
      });
      expect(renewableVisitorId(secret, signed(exp), tenantA, t0), String(exp)).toBeUndefined();
    }
    // A token issued a moment "later" by an instance whose clock runs a little ahead still holds.
    expect(
      verifyVisitorToken(secret, signed(nowSec + VISITOR_TOKEN_TTL_SEC + 30), tenantA, t0),
    ).toMatchObject({
      ok: true,
    });
  });

  it("give a fresh visitor id each time, kept when renewing a valid or recently expired token", () => {
    const first = signVisitorToken(secret, { tenantId: tenantA, now: t0 });
    const other = signVisitorToken(secret, { tenantId: tenantA, now: t0 });
    expect(first.claims.visitorId).not.toBe(other.claims.visitorId);
    expect(renewableVisitorId(secret, first.token, tenantA, later(10))).toBe(first.claims.visitorId);
    expect(renewableVisitorId(secret, first.token, tenantA, later(VISITOR_TOKEN_TTL_SEC + 3600))).toBe(
      first.claims.visitorId,
    );
    expect(renewableVisitorId(secret, first.token, tenantA, later(VISITOR_TOKEN_TTL_SEC + 3 * 86400))).toBe(
      undefined,
    );
    expect(renewableVisitorId(secret, first.token, tenantB, later(10))).toBe(undefined);
    expect(renewableVisitorId(secret, null, tenantA, later(10))).toBe(undefined);
  });

  it("are read from a Bearer header only", () => {
    expect(bearerToken(new Headers({ authorization: "Bearer abc.def" }))).toBe("abc.def");
    expect(bearerToken(new Headers({ authorization: "Basic abc" }))).toBe(null);
    expect(bearerToken(new Headers())).toBe(null);
  });
});
