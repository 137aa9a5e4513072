import "server-only";
import { eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { createUser, findUserByEmail, findUserById } from "../db/queries/users";
import { users } from "../db/schema";
import { AppError } from "../errors";
import { generatePassword, hashPassword, verifyPassword } from "./password";

// A person's own account. Users are platform rows (one person, many tenants), so this is platform work.

export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;

/** Signs out every session of the user: tokens carry the version they were issued with. Returns the new one. */
export async function bumpSessionVersion(db: Db, userId: string): Promise<number> {
  const [row] = await db
    .update(users)
    .set({ sessionVersion: sql`${users.sessionVersion} + 1`, updatedAt: new Date() })
    .where(eq(users.id, userId))
    .returning({ v: users.sessionVersion });
  if (!row) throw new AppError("not_found", "Your account no longer exists.");
  return row.v;
}

export async function updateName(db: Db, userId: string, name: string): Promise<void> {
  await db.update(users).set({ name, updatedAt: new Date() }).where(eq(users.id, userId));
}

/**
 * Checks the current password, stores the new one, clears the one-time-password flag and revokes every
 * other session. Returns the new session version so the caller can re-issue this device's session.
 */
export async function changePassword(
  db: Db,
  userId: string,
  input: { current: string; next: string },
): Promise<number> {
  const user = await findUserById(db, userId);
  if (!user) throw new AppError("not_found", "Your account no longer exists.");
  if (!(await verifyPassword(user.passwordHash, input.current)))
    throw new AppError("invalid_input", "Your current password is not right.", {
      fieldErrors: { currentPassword: ["Your current password is not right."] },
    });
  if (input.next === input.current)
    throw new AppError("invalid_input", "Choose a password different from the current one.", {
      fieldErrors: { newPassword: ["Choose a password different from the current one."] },
    });
  const hash = await hashPassword(input.next);
  const [row] = await db
    .update(users)
    .set({
      passwordHash: hash,
      mustChangePassword: false,
      sessionVersion: sql`${users.sessionVersion} + 1`,
      updatedAt: new Date(),
    })
    .where(eq(users.id, userId))
    .returning({ v: users.sessionVersion });
  if (!row) throw new AppError("not_found", "Your account no longer exists.");
  return row.v;
}

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

/**
 * The account for an e-mail address, created when missing with a one-time password the caller shows once.
 * The new account must change that password at first sign-in.
 */
export async function findOrCreateUser(
  db: Db,
  email: string,
): Promise<{
  user: NonNullable<Awaited<ReturnType<typeof findUserByEmail>>>;
  oneTimePassword: string | null;
}> {
  const existing = await findUserByEmail(db, email);
  if (existing) return { user: existing, oneTimePassword: null };
  const oneTimePassword = generatePassword();
  const user = await createUser(db, {
    email,
    name: "",
    passwordHash: await hashPassword(oneTimePassword),
    mustChangePassword: true,
  });
  return { user, oneTimePassword };
}
