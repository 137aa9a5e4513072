import "server-only";
import { z } from "zod";
import type { Db } from "../db/client";
import { createUser, findUserByEmail } from "../db/queries/users";

// Signing in with an account: password bounds and matching an OAuth identity to a user. The account's own
// use cases (password, name, sign out everywhere) are in src/lib/accounts/users.ts.

export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;

/** A password a person chooses (sign-up, invitation, reset, change), with the words every form shows. */
export const newPasswordField = z
  .string()
  .min(PASSWORD_MIN, `Use at least ${PASSWORD_MIN} characters`)
  .max(PASSWORD_MAX, `Use at most ${PASSWORD_MAX} characters`);

/**
 * An OAuth sign-in is matched to an account by its verified e-mail. Without a match, an account is created
 * only when sign-up is open; otherwise the person must first be added to a team by e-mail.
 */
export async function matchOrCreateOAuthUser(
  db: Db,
  input: { email: string; name?: string | null },
  allowCreate: boolean,
) {
  const existing = await findUserByEmail(db, input.email);
  if (existing) return existing;
  if (!allowCreate) return null;
  try {
    return await createUser(db, { email: input.email, name: input.name ?? "", passwordHash: null });
  } catch (e) {
    // Two first sign-ins at once: the unique e-mail index lets one insert win; anything else is a fault.
    const winner = await findUserByEmail(db, input.email);
    if (winner) return winner;
    throw e;
  }
}

type GithubEmail = { email: string; primary: boolean; verified: boolean };

/** GitHub's profile e-mail may be unverified or hidden; only a verified address (primary first) is trusted. */
export async function verifiedGithubEmail(
  accessToken: string | undefined,
  fetchFn: typeof fetch = fetch,
): Promise<string | null> {
  if (!accessToken) return null;
  const res = await fetchFn("https://api.github.com/user/emails", {
    headers: { Authorization: `Bearer ${accessToken}`, Accept: "application/vnd.github+json" },
  });
  if (!res.ok) return null;
  const list = (await res.json()) as unknown;
  if (!Array.isArray(list)) return null;
  const emails = list.filter(
    (e): e is GithubEmail =>
      typeof e === "object" && e !== null && typeof e.email === "string" && e.verified === true,
  );
  const pick = emails.find((e) => e.primary) ?? emails[0];
  return pick ? pick.email.toLowerCase() : null;
}
