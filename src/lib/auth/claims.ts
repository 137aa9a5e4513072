import "server-only";
import { cookies } from "next/headers";
import { isUuid } from "@/shared/parse";
import { decodeSession, sessionCookieName } from "./session-cookie";

// The only place that reads the session cookie. The guard depends on this one function, so tests may replace
// it (vi.mock("@/lib/auth/claims")), or mock next/headers and hand it a real token.

export type SessionClaims = { uid: string; sv: number };

/** The user id and session version carried by the JWT, or null when signed out or the token is not ours. */
export async function readSessionClaims(): Promise<SessionClaims | null> {
  const jar = await cookies();
  return claimsFrom(await decodeSession(jar.get(sessionCookieName())?.value));
}

export function claimsFrom(value: Record<string, unknown> | null | undefined): SessionClaims | null {
  if (!value) return null;
  const { uid, sv } = value;
  if (!isUuid(uid) || typeof sv !== "number" || !Number.isInteger(sv)) return null;
  return { uid, sv };
}
