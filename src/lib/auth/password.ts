import "server-only";
import { randomBytes, scrypt as scryptCb, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";

// scrypt from node:crypto with OWASP's parameters for 32 MiB (N=2^15, r=8, p=3). We moved off the argon2
// package because its prebuilt glibc binary crashed the standalone server on Debian 12; a built-in needs no
// native addon that can break in a slim image. Stored as scrypt$N$r$p$salt$hash so parameters can grow later.
const scrypt = promisify(scryptCb) as (
  pw: string,
  salt: Buffer,
  len: number,
  opts: object,
) => Promise<Buffer>;
const PARAMS = { N: 2 ** 15, r: 8, p: 3 };
export type ScryptParams = typeof PARAMS;
const KEYLEN = 32;

function maxmem(N: number, r: number, p: number) {
  return 128 * N * r * p + 16 * 1024 * 1024;
}

/**
 * Hashes with OWASP's parameters. `params` exists for tests that sign in dozens of times: verification reads
 * the parameters from the stored hash, so a cheaper test hash makes each attempt cheap without touching the
 * throttle or the sign-in path they test.
 */
export async function hashPassword(plain: string, params: ScryptParams = PARAMS): Promise<string> {
  const salt = randomBytes(16);
  const { N, r, p } = params;
  const hash = await scrypt(plain.normalize("NFKC"), salt, KEYLEN, { N, r, p, maxmem: maxmem(N, r, p) });
  return `scrypt$${N}$${r}$${p}$${salt.toString("base64")}$${hash.toString("base64")}`;
}

export async function verifyPassword(stored: string | null | undefined, plain: string): Promise<boolean> {
  const parts = stored?.split("$");
  if (parts?.length !== 6 || parts[0] !== "scrypt") return false;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![N, r, p].every((n) => Number.isInteger(n) && n > 0) || N > 2 ** 20) return false;
  const salt = Buffer.from(parts[4]!, "base64");
  const expected = Buffer.from(parts[5]!, "base64");
  try {
    const actual = await scrypt(plain.normalize("NFKC"), salt, expected.length, {
      N,
      r,
      p,
      maxmem: maxmem(N, r, p),
    });
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  } catch {
    return false;
  }
}

/** Readable one-time passwords: 20 characters from an alphabet without look-alikes. */
export function generatePassword(length = 20): string {
  const alphabet = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
  const bytes = randomBytes(length);
  let out = "";
  for (const b of bytes) out += alphabet[b % alphabet.length];
  return out;
}
