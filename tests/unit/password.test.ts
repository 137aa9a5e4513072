import { describe, expect, it } from "vitest";
import { generatePassword, hashPassword, verifyPassword } from "@/lib/auth/password";

describe("passwords", () => {
  it("verifies the right password and refuses a wrong one", async () => {
    const hash = await hashPassword("correct horse battery");
    expect(hash).toMatch(/^scrypt\$32768\$8\$3\$/);
    expect(hash).not.toContain("correct horse");
    expect(await verifyPassword(hash, "correct horse battery")).toBe(true);
    expect(await verifyPassword(hash, "correct horse batterY")).toBe(false);
  });

  it("salts every hash", async () => {
    expect(await hashPassword("same")).not.toBe(await hashPassword("same"));
  });

  it("refuses malformed or missing hashes instead of throwing", async () => {
    expect(await verifyPassword(null, "x")).toBe(false);
    expect(await verifyPassword("scrypt$1$1", "x")).toBe(false);
    expect(await verifyPassword("scrypt$99999999$8$1$AA==$AA==", "x")).toBe(false);
  });

  it("generates readable one-time passwords", () => {
    const p = generatePassword();
    expect(p).toHaveLength(20);
    expect(p).not.toMatch(/[0O1lI]/);
  });
});
