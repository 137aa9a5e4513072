import "server-only";
import type { TenantContext } from "../auth/access";
import { generatePassword, hashPassword, verifyPassword } from "../auth/password";
import { type SignInThrottle, signInThrottle, throttleMessage } from "../auth/throttle";
import type { Db } from "../db/client";
import {
  bumpSessionVersion,
  createUser,
  findUserByEmail,
  findUserById,
  setUserName,
  setUserPassword,
  type UserRow,
} from "../db/queries/users";
import { AppError } from "../errors";

// A person's own account. Users are platform rows (one person, many tenants), so this is platform work.

const gone = () => new AppError("not_found", "Your account no longer exists.");

// The caller's own user row only: the use cases take the guard's context and never a user id from a form.
type Caller = Pick<TenantContext, "db" | "user">;

/** Signs out every session of the caller. Returns the new session version. */
export async function signOutEverywhere(ctx: Caller): Promise<number> {
  const v = await bumpSessionVersion(ctx.db.platform, ctx.user.id);
  if (v === null) throw gone();
  return v;
}

export async function renameUser(ctx: Caller, name: string): Promise<void> {
  await setUserName(ctx.db.platform, ctx.user.id, name);
}

/**
 * Checks the current password, stores the new one, clears the one-time-password flag and revokes every
 * other session. Returns the new session version so the caller can re-issue this device's session.
 * Wrong current passwords count in the sign-in throttle (same e-mail+IP pair): a stolen session must not
 * become a way to guess the password at full speed.
 */
export async function changePassword(
  ctx: Caller,
  input: { current: string; next: string; ip: string },
  throttle: SignInThrottle = signInThrottle(),
): Promise<number> {
  const db = ctx.db.platform;
  const userId = ctx.user.id;
  const user = await findUserById(db, userId);
  if (!user) throw gone();
  const wait = await throttle.blockedFor(user.email, input.ip);
  if (wait > 0) throw new AppError("rate_limited", throttleMessage(wait), { retryAfterSec: wait });
  if (!(await verifyPassword(user.passwordHash, input.current))) {
    await throttle.failed(user.email, input.ip);
    throw new AppError("invalid_input", "Your current password is not right.", {
      fieldErrors: { currentPassword: ["Your current password is not right."] },
    });
  }
  await throttle.succeeded(user.email, input.ip);
  if (input.next === input.current)
    throw new AppError("invalid_input", "Choose a password different from the current one.", {
      fieldErrors: { newPassword: ["Choose a password different from the current one."] },
    });
  const v = await setUserPassword(db, userId, await hashPassword(input.next));
  if (v === null) throw gone();
  return v;
}

/**
 * The account for an e-mail address, created when missing with a one-time password the caller shows once.
 * The new account must change that password at first sign-in.
 */
export async function findOrCreateUser(
  db: Db,
  email: string,
): Promise<{ user: UserRow; oneTimePassword: string | null }> {
  const oneTimePassword = generatePassword();
  // Hashed before the lookup, so finding an account takes as long as creating one.
  const passwordHash = await hashPassword(oneTimePassword);
  const existing = await findUserByEmail(db, email);
  if (existing) return { user: existing, oneTimePassword: null };
  const user = await createUser(db, { email, name: "", passwordHash, mustChangePassword: true });
  return { user, oneTimePassword };
}
