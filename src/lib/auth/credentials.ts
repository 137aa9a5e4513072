import "server-only";
import { randomBytes } from "node:crypto";
import type { Db } from "../db/client";
import { findUserByEmail } from "../db/queries/users";
import type { users } from "../db/schema";
import { processSlot } from "../process-slot";
import { hashPassword, verifyPassword } from "./password";
import { type SignInThrottle, signInThrottle } from "./throttle";

// E-mail + password sign-in, shared by the sign-in page's server action and next-auth's Credentials provider.

export type UserRow = typeof users.$inferSelect;

export type SignInOutcome =
  | { ok: true; user: UserRow }
  | { ok: false; reason: "invalid" }
  | { ok: false; reason: "throttled"; retryAfterSec: number };

const dummyHashSlot = processSlot<Promise<string>>("DummyHash");

/** A hash to verify against when the e-mail is unknown, so both cases take as long and reveal nothing. */
function dummyHash(): Promise<string> {
  return dummyHashSlot.use(() => hashPassword(randomBytes(18).toString("base64")));
}

export async function authenticate(
  db: Db,
  input: { email: string; password: string; ip: string },
  throttle: SignInThrottle = signInThrottle(),
): Promise<SignInOutcome> {
  const email = input.email.trim().toLowerCase();
  const wait = await throttle.blockedFor(email, input.ip);
  if (wait > 0) return { ok: false, reason: "throttled", retryAfterSec: wait };
  const user = await findUserByEmail(db, email);
  let valid = false;
  if (user?.passwordHash) valid = await verifyPassword(user.passwordHash, input.password);
  else await verifyPassword(await dummyHash(), input.password); // same cost whether or not the account exists
  if (!user || !valid) {
    await throttle.failed(email, input.ip);
    return { ok: false, reason: "invalid" };
  }
  await throttle.succeeded(email, input.ip);
  return { ok: true, user };
}
