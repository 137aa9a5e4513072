import "server-only";
import { hashPassword } from "../auth/password";
import type { DbHandle } from "../db/client";
import { completePasswordReset, findUsableReset, insertPasswordReset } from "../db/queries/password-resets";
import { findUserByEmail } from "../db/queries/users";
import { env } from "../env";
import { AppError } from "../errors";
import { log } from "../log";
import { sendMail } from "../mail/send";
import { processQueue, type QueuePolicy, type QueueWorker } from "../queue";
import { LIMITS, takeOrRefuse } from "../security/limits";
import { hashLinkToken, isLinkToken, newLinkToken } from "../security/link-token";
import { limiter } from "../security/rate-limit";

// "Forgot password?": a single-use link by e-mail, valid for an hour. The request answers before anything
// about the address is looked at: the only work before the answer is the per-network limit and enqueueing
// one job, the same for every address, so neither the words nor the time of the answer tell whether the
// address has an account (tests/integration/password-reset-timing.test.ts). The job (durable, retried)
// looks the address up, records the link and mails it. Setting the new password signs out every session of
// the account (the session version moves on).

export const RESET_MINUTES = 60;

const TOO_MANY = "Too many attempts from your network.";

export const PASSWORD_RESET_QUEUE = "password-reset-mail";

/** A mail server that is down for a while still gets the link within the hour the link is valid. */
const PASSWORD_RESET_POLICY: QueuePolicy = { retryLimit: 4, retryDelaySeconds: 30, expireInSeconds: 120 };

type ResetJob = { email: string; requestedAt: string };

export const resetUrl = (token: string) => `${env().MICHI_PUBLIC_URL}/signin/reset#${token}`;

/** Answers "Forgot password?": checks the network's limit and queues the work; the same for every address. */
export async function requestPasswordReset(
  _db: DbHandle,
  input: { email: string; ip: string },
  now = new Date(),
): Promise<void> {
  await takeOrRefuse(LIMITS.resetRequestPerIp, input.ip, TOO_MANY);
  const pending = processQueue();
  if (!pending) throw new Error("the job queue is not running (boot starts it; tests start one)");
  const job: ResetJob = { email: input.email.trim().toLowerCase(), requestedAt: now.toISOString() };
  await (await pending).send(PASSWORD_RESET_QUEUE, job);
}

/**
 * The job: records a link and mails it when the address has an account (at most three an hour per address).
 * A link mailed after its hour would be no use, so a job that waited that long (a queue stopped for hours)
 * sends nothing. Throws when the mail could not be handed over, so the queue tries again.
 */
export async function mailPasswordReset(db: DbHandle, job: ResetJob, now = new Date()): Promise<void> {
  const requestedAt = new Date(job.requestedAt);
  if (!(now.getTime() - requestedAt.getTime() < RESET_MINUTES * 60_000)) return;
  const email = job.email;
  if ((await limiter(LIMITS.resetMailPerEmail).take(email)) !== null) return;
  const user = await findUserByEmail(db.platform, email);
  if (!user) return;
  const { token, hash } = newLinkToken();
  await insertPasswordReset(db.platform, {
    userId: user.id,
    tokenHash: hash,
    expiresAt: new Date(now.getTime() + RESET_MINUTES * 60_000),
  });
  const mail = await sendMail({
    kind: "password_reset",
    to: user.email,
    subject: "Reset your michi-chat password",
    text: [
      `Someone asked to reset the password of the michi-chat account ${user.email}.`,
      "",
      `To choose a new password, open this link within ${RESET_MINUTES} minutes. It works once:`,
      resetUrl(token),
      "",
      "If it was not you, ignore this mail: your password stays as it is.",
    ].join("\n"),
  });
  if (mail.status === "failed") throw new Error(`the reset mail could not be sent: ${mail.error}`);
}

/** The queue's worker for the reset mails (boot registers it with the others). */
export function passwordResetWorkers(db: DbHandle): QueueWorker[] {
  const worker: QueueWorker<ResetJob> = {
    name: PASSWORD_RESET_QUEUE,
    policy: PASSWORD_RESET_POLICY,
    batchSize: 5,
    handler: (job) => mailPasswordReset(db, job.data),
  };
  return [worker as QueueWorker];
}

/** For the reset page: the account a usable link belongs to, or null (unknown, used or expired). */
export async function checkResetLink(db: DbHandle, token: string, now = new Date()) {
  if (!isLinkToken(token)) return null;
  const found = await findUsableReset(db.platform, hashLinkToken(token), now);
  return found ? { email: found.email } : null;
}

export const RESET_LINK_INVALID =
  "This link is not valid any more: it was used already or it expired. Ask for a new one.";

/** Sets the new password if the link is still usable; uses it up and every other link of the account. */
export async function resetPassword(
  db: DbHandle,
  input: { token: string; password: string; ip: string },
  now = new Date(),
): Promise<{ email: string }> {
  await takeOrRefuse(LIMITS.resetSetPerIp, input.ip, TOO_MANY);
  if (!isLinkToken(input.token)) throw new AppError("not_found", RESET_LINK_INVALID);
  // Hashed before the transaction: scrypt takes a while and must not hold the row lock meanwhile.
  const passwordHash = await hashPassword(input.password);
  const email = await completePasswordReset(db.platform, hashLinkToken(input.token), passwordHash, now);
  if (email === null) throw new AppError("not_found", RESET_LINK_INVALID);
  log().info({ event: "password_reset" }, "password reset through a mailed link");
  return { email };
}
