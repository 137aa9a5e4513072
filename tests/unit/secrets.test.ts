import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { keyId, needsReseal, openSecret, SecretOpenError, sealSecret } from "@/lib/security/secrets";

const k1 = randomBytes(32);
const k2 = randomBytes(32);
const aad = { tenantId: "8d7c2a36-1111-4c4c-9a9a-000000000001", packId: "check_stock", key: "apiToken" };

describe("secret sealing", () => {
  it("round-trips and never stores the plain text", () => {
    const sealed = sealSecret("tok_live_123", aad, { current: k1 });
    expect(JSON.stringify(sealed)).not.toContain("tok_live_123");
    expect(sealed.kid).toBe(keyId(k1));
    expect(openSecret(sealed, aad, { current: k1 })).toBe("tok_live_123");
    // A fresh IV each time: sealing the same value twice gives different ciphertexts.
    expect(sealSecret("tok_live_123", aad, { current: k1 }).ct).not.toBe(sealed.ct);
  });

  it("fails when the ciphertext is moved to another tenant, pack or field", () => {
    const sealed = sealSecret("tok_live_123", aad, { current: k1 });
    for (const other of [
      { ...aad, tenantId: "8d7c2a36-1111-4c4c-9a9a-000000000002" },
      { ...aad, packId: "get_menu" },
      { ...aad, key: "otherToken" },
    ]) {
      expect(() => openSecret(sealed, other, { current: k1 })).toThrow(SecretOpenError);
    }
  });

  it("fails on a tampered ciphertext or tag", () => {
    const sealed = sealSecret("tok_live_123", aad, { current: k1 });
    const ct = Buffer.from(sealed.ct, "base64");
    ct[0] = (ct[0] ?? 0) ^ 1;
    expect(() => openSecret({ ...sealed, ct: ct.toString("base64") }, aad, { current: k1 })).toThrow(
      SecretOpenError,
    );
  });

  it("keeps old values readable during a key rotation, and flags them for re-sealing", () => {
    const old = sealSecret("tok_old", aad, { current: k1 });
    const rotated = { current: k2, previous: k1 };
    expect(openSecret(old, aad, rotated)).toBe("tok_old");
    expect(needsReseal(old, rotated)).toBe(true);
    const fresh = sealSecret("tok_new", aad, rotated);
    expect(fresh.kid).toBe(keyId(k2));
    expect(needsReseal(fresh, rotated)).toBe(false);
    // Once the previous key is dropped, values sealed under it no longer open.
    expect(() => openSecret(old, aad, { current: k2 })).toThrow(/no key with id/);
  });
});
