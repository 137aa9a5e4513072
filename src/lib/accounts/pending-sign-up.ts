import "server-only";
import { hashPassword } from "../auth/password";
import type { DbHandle } from "../db/client";
import { findInvitationById } from "../db/queries/invitations";
import {
  deletePendingSignUp,
  findMailablePendingSignUp,
  findUsablePendingSignUp,
  insertPendingSignUp,
  type PendingSignUpRow,
  purgeExpiredPendingSignUps,
  setPendingSignUpToken,
} from "../db/queries/pending-sign-ups";
import { findUserByEmail } from "../db/queries/users";
import { env } from "../env";
import { AppError } from "../errors";
import { mailDelivery, sendMail } from "../mail/send";
import { processQueue, type QueuePolicy, type QueueWorker } from "../queue";
import { LIMITS } from "../security/limits";
import { hashLinkToken, isLinkToken, newLinkToken } from "../security/link-token";
import { limiter } from "../security/rate-limit";
import { confirmSignUpMail, existingAccountMail, type SignUpPurpose } from "./sign-up-mail";

// Accounts are created only once their address is confirmed (issue 44, finding 6). Sign-up and "create an
// account" on an invitation store what the person typed (the password as its scrypt hash) in a pending row
// and queue one job, the same work for every address, and answer "check your inbox". The job, durable and
// retried, looks at the address: without an account it records a link's token (as its SHA-256) and mails the
// link; with one it mails that the address has an account, with no link that creates anything. Whoever typed
// the form never sees the link, so nobody can make an account for an address they cannot read.

export const SIGN_UP_LINK_HOURS = 24;

export const SIGN_UP_MAIL_QUEUE = "sign-up-mail";

/** A mail server that is down for a while still gets the link out well within its day. */
const SIGN_UP_MAIL_POLICY: QueuePolicy = { retryLimit: 4, retryDelaySeconds: 30, expireInSeconds: 120 };

type SignUpJob = { id: string };

export const confirmSignUpUrl = (token: string) => `${env().MICHI_PUBLIC_URL}/signup/confirm#${token}`;

export const SIGN_UP_NEEDS_MAIL =
  "This installation sends no mail, so a new account cannot be confirmed here. Ask the platform's operator for an account, then sign in.";

export type PendingInput = {
  email: string;
  name: string;
  password: string;
} & ({ businessName: string; timeZone?: string } | { invitationId: string });

/** Records a sign-up waiting for its confirmation and queues its mail; the same work for every address. */
export async function queuePendingSignUp(db: DbHandle, input: PendingInput, now = new Date()): Promise<void> {
  // Without mail the link could never arrive: say so rather than "check your inbox" (the same for everyone).
  if (mailDelivery() === "off") throw new AppError("unavailable", SIGN_UP_NEEDS_MAIL);
  const pending = processQueue();
  if (!pending) throw new Error("the job queue is not running (boot starts it; tests start one)");
  const passwordHash = await hashPassword(input.password);
  const id = await insertPendingSignUp(db.platform, {
    email: input.email.trim().toLowerCase(),
    name: input.name,
    passwordHash,
    ...("invitationId" in input
      ? { invitationId: input.invitationId }
      : { businessName: input.businessName, timeZone: input.timeZone ?? null }),
    expiresAt: new Date(now.getTime() + SIGN_UP_LINK_HOURS * 3_600_000),
  });
  const job: SignUpJob = { id };
  await (await pending).send(SIGN_UP_MAIL_QUEUE, job);
}

async function purposeOf(db: DbHandle, row: PendingSignUpRow): Promise<SignUpPurpose | null> {
  if (!row.invitationId) return { business: row.businessName ?? "", invited: false };
  const found = await findInvitationById(db.platform, row.invitationId);
  return found ? { business: found.tenantName, invited: true } : null;
}

/**
 * The job. Throws when the mail could not be handed over, so the queue tries again (a retry makes a new link
 * and forgets the unmailed one). Expired rows go first: they hold password hashes nobody will use.
 */
export async function mailSignUpLink(db: DbHandle, job: SignUpJob, now = new Date()): Promise<void> {
  await purgeExpiredPendingSignUps(db.platform, now);
  const row = await findMailablePendingSignUp(db.platform, job.id, now);
  if (!row) return;
  const purpose = await purposeOf(db, row);
  if (!purpose || (await limiter(LIMITS.signUpMailPerEmail).take(row.email)) !== null) {
    await deletePendingSignUp(db.platform, row.id);
    return;
  }
  const known = await findUserByEmail(db.platform, row.email);
  const origin = env().MICHI_PUBLIC_URL;
  let words: { subject: string; text: string };
  if (known) words = existingAccountMail({ email: row.email, purpose, origin });
  else {
    const { token, hash } = newLinkToken();
    await setPendingSignUpToken(db.platform, row.id, hash);
    const link = confirmSignUpUrl(token);
    words = confirmSignUpMail({ email: row.email, purpose, link, hours: SIGN_UP_LINK_HOURS });
  }
  const mail = await sendMail({ kind: "sign_up", to: row.email, ...words });
  if (mail.status === "failed") throw new Error(`the sign-up mail could not be sent: ${mail.error}`);
  // Nothing will come of it: the password hash is not kept.
  if (known) await deletePendingSignUp(db.platform, row.id);
}

/** The queue's worker for the sign-up mails (boot registers it with the others). */
export function signUpMailWorkers(db: DbHandle): QueueWorker[] {
  const worker: QueueWorker<SignUpJob> = {
    name: SIGN_UP_MAIL_QUEUE,
    policy: SIGN_UP_MAIL_POLICY,
    batchSize: 5,
    handler: (job) => mailSignUpLink(db, job.data),
  };
  return [worker as QueueWorker];
}

export const SIGN_UP_LINK_INVALID =
  "This link is not valid any more: it was used already or it expired. Sign up again to get a new one.";

/** For the confirmation page: what a usable link finishes, or null (unknown, used or expired). */
export async function readSignUpLink(
  db: DbHandle,
  token: string,
  now = new Date(),
): Promise<({ email: string } & SignUpPurpose) | null> {
  if (!isLinkToken(token)) return null;
  const row = await findUsablePendingSignUp(db.platform, hashLinkToken(token), now);
  const purpose = row ? await purposeOf(db, row) : null;
  return row && purpose ? { email: row.email, ...purpose } : null;
}
