import "server-only";
import { SIGN_UP_LINK_INVALID } from "../accounts/pending-sign-up";
import { verifyPassword } from "../auth/password";
import type { SessionTokenUser } from "../auth/session-cookie";
import type { DbHandle } from "../db/client";
import {
  claimPendingSignUp,
  findUsablePendingSignUp,
  releasePendingSignUp,
} from "../db/queries/pending-sign-ups";
import { findUserByEmail } from "../db/queries/users";
import { env } from "../env";
import { AppError, isAppError } from "../errors";
import { log } from "../log";
import { LIMITS, takeOrRefuse } from "../security/limits";
import { hashLinkToken, isLinkToken } from "../security/link-token";
import { createAccountAndAccept } from "../team/invitations";
import { HAS_ACCOUNT, openBusinessFromSignUp } from "./sign-up";

// The second step of a sign-up: the link mailed to the address (src/lib/accounts/pending-sign-up.ts) is
// opened, and only now are the account and its business (or its membership, for an invitation) created,
// with what was typed in the first step. The password chosen then is asked for again: the link proves the
// address, the password proves that the person confirming is the one who filled in the form, so a stranger's
// sign-up with someone's address (an inviter's, say) cannot be finished by that address's owner by mistake.

const WRONG_PASSWORD = "That is not the password chosen when this sign-up was sent.";

/** Creates what the link was for and returns the account to sign in and where to land. */
export async function completeSignUp(
  db: DbHandle,
  input: { token: string; password: string; ip: string },
  now = new Date(),
): Promise<{ user: SessionTokenUser; slug: string }> {
  await takeOrRefuse(LIMITS.signUpConfirmPerIp, input.ip, "Too many attempts from your network.");
  if (!isLinkToken(input.token)) throw new AppError("not_found", SIGN_UP_LINK_INVALID);
  const tokenHash = hashLinkToken(input.token);
  const found = await findUsablePendingSignUp(db.platform, tokenHash, now);
  if (!found) throw new AppError("not_found", SIGN_UP_LINK_INVALID);
  if (!(await verifyPassword(found.passwordHash, input.password)))
    throw new AppError("invalid_input", WRONG_PASSWORD, { fieldErrors: { password: [WRONG_PASSWORD] } });
  if (!found.invitationId && !env().MICHI_ALLOW_SIGNUP)
    throw new AppError("forbidden", "Sign-up is closed on this installation.");
  // Claimed before anything is created: of two clicks at once, one gets the row and the other is refused.
  const row = await claimPendingSignUp(db.platform, tokenHash, now);
  if (!row) throw new AppError("not_found", SIGN_UP_LINK_INVALID);
  try {
    // An account made meanwhile (another sign-up, an operator, a first OAuth sign-in) is left as it is.
    if (await findUserByEmail(db.platform, row.email)) throw new AppError("conflict", HAS_ACCOUNT);
    const made = row.invitationId
      ? await createAccountAndAccept(db, { ...row, invitationId: row.invitationId }, now)
      : await openBusinessFromSignUp(db, { ...row, businessName: row.businessName ?? "" }).then((b) => ({
          user: b.user,
          slug: b.tenant.slug,
        }));
    log().info({ event: "sign_up_confirmed" }, "account created through a confirmation link");
    const { id, email, name, sessionVersion } = made.user;
    return { user: { id, email, name, sessionVersion }, slug: made.slug };
  } catch (e) {
    // A refusal stands; a fault (the database away) gives the link back, so the person can try again.
    if (!isAppError(e)) await releasePendingSignUp(db.platform, row.id).catch(() => undefined);
    throw e;
  }
}
