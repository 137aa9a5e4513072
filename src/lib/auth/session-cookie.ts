import "server-only";
import { decode, encode } from "next-auth/jwt";
import { env } from "../env";

// The session is next-auth's encrypted JWT cookie. Our sign-in and sign-up actions issue it themselves (so the
// forms work as plain server-action forms) and next-auth issues the same token after an OAuth sign-in; the
// guard reads it back here. Both sides use next-auth's own encode/decode, secret and cookie name.

export const SESSION_MAX_AGE_SEC = 14 * 24 * 60 * 60;

export function secureCookies(): boolean {
  return env().MICHI_PUBLIC_URL.startsWith("https://");
}

export function sessionCookieName(): string {
  return `${secureCookies() ? "__Secure-" : ""}next-auth.session-token`;
}

export type SessionTokenUser = { id: string; email: string; name: string; sessionVersion: number };

/** The claims we put in every token: `uid` and `sv` are what the guard checks against the users table. */
export function tokenClaims(user: SessionTokenUser) {
  return { sub: user.id, uid: user.id, sv: user.sessionVersion, email: user.email, name: user.name };
}

export function encodeSession(user: SessionTokenUser): Promise<string> {
  return encode({ token: tokenClaims(user), secret: env().MICHI_AUTH_SECRET, maxAge: SESSION_MAX_AGE_SEC });
}

/** The token's payload, or null when it is missing, forged, expired or sealed with another secret. */
export async function decodeSession(raw: string | undefined): Promise<Record<string, unknown> | null> {
  if (!raw) return null;
  try {
    return (await decode({ token: raw, secret: env().MICHI_AUTH_SECRET })) as Record<string, unknown> | null;
  } catch {
    return null;
  }
}

type CookieJar = {
  get(name: string): { value: string } | undefined;
  getAll(): { name: string }[];
  set(name: string, value: string, options: Record<string, unknown>): unknown;
};

function cookieOptions(maxAge: number) {
  return { httpOnly: true, sameSite: "lax", path: "/", secure: secureCookies(), maxAge };
}

/** Signs this browser in as `user` (server actions only: they may set cookies). */
export async function issueSession(jar: CookieJar, user: SessionTokenUser): Promise<void> {
  jar.set(sessionCookieName(), await encodeSession(user), cookieOptions(SESSION_MAX_AGE_SEC));
}

/** Signs this browser out; chunked cookies (name.0, name.1, …) included. */
export function clearSession(jar: CookieJar): void {
  const name = sessionCookieName();
  for (const c of jar.getAll())
    if (c.name === name || c.name.startsWith(`${name}.`)) jar.set(c.name, "", cookieOptions(0));
}
