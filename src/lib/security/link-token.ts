import "server-only";
import { createHash, randomBytes } from "node:crypto";

// Tokens of single-use links (invitations, password resets). 32 random bytes, base64url, so a link cannot be
// guessed; the database keeps only the SHA-256, so a leaked table or backup opens nothing. A plain hash (not
// scrypt) is enough for 256 random bits and lets the link be found by an index lookup.

export function newLinkToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString("base64url");
  return { token, hash: hashLinkToken(token) };
}

export function hashLinkToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** The shape newLinkToken makes; anything else is refused before the database is asked. */
export function isLinkToken(value: unknown): value is string {
  return typeof value === "string" && /^[A-Za-z0-9_-]{43}$/.test(value);
}

/**
 * The answer to an old-style link with the token in its path: a redirect to `page#<token>`, which the browser
 * follows without sending the fragment. Never cached, and no Referer carrying the old path.
 */
export function fragmentRedirect(page: string, token: string): Response {
  return new Response(null, {
    status: 303,
    headers: {
      location: `${page}#${encodeURIComponent(token)}`,
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
    },
  });
}
