import "server-only";
import { AppError } from "../errors";
import { type LimiterSpec, limiter } from "./rate-limit";

// Every fixed rate limit of the platform, in one table, and the one way a refusal is worded. The chat's own
// limits (messages per visitor, IP and tenant; open streams; session tokens) are per tenant and set by the
// operator, so they live with the chat (src/lib/chat/limits.ts).

const HOUR = 60 * 60;

/** Wrong passwords in a row for one e-mail from one network before that pair is blocked. */
export const SIGN_IN_PAIR_FAILURES = 10;

export const LIMITS = {
  // Only failures count. The limiter refuses the consume that goes past `points`, and that one starts the
  // block: with points MAX-1 the MAX-th failure is still checked, then the pair is blocked before attempt
  // MAX+1.
  signInPair: {
    keyPrefix: "signin_pair",
    points: SIGN_IN_PAIR_FAILURES - 1,
    durationSec: HOUR,
    blockDurationSec: 15 * 60,
  },
  // Failures across all e-mails from one network, against spraying many accounts.
  signInIp: { keyPrefix: "signin_ip", points: 99, durationSec: HOUR, blockDurationSec: HOUR },
  // Accounts are cheap to create; a ceiling per network keeps a script from filling the database.
  signUpPerIp: { keyPrefix: "signup_ip", points: 10, durationSec: HOUR },
  inviteSignUpPerIp: { keyPrefix: "invite_signup_ip", points: 10, durationSec: HOUR },
  // Sign-up confirmation mails to one address: a person retrying is fine, a victim's inbox is not flooded.
  signUpMailPerEmail: { keyPrefix: "signup_mail_email", points: 3, durationSec: HOUR },
  // Submissions of a confirmation link's form (the password typed again) from one network.
  signUpConfirmPerIp: { keyPrefix: "signup_confirm_ip", points: 20, durationSec: HOUR },
  // Each invitation sends a mail to an address the owner typed.
  invitesPerOwner: { keyPrefix: "team_invite", points: 20, durationSec: HOUR },
  // Reset requests from one network: bounds mail sent to strangers and enumeration attempts.
  resetRequestPerIp: { keyPrefix: "reset_request_ip", points: 10, durationSec: HOUR },
  // Reset mails to one address: plenty for a person, and no flood for a victim's inbox.
  resetMailPerEmail: { keyPrefix: "reset_request_email", points: 3, durationSec: HOUR },
  // New-password submissions from one network (the tokens cannot be guessed; this stops scripted hammering).
  resetSetPerIp: { keyPrefix: "reset_set_ip", points: 20, durationSec: HOUR },
  // Contact requests reach a person's inbox: a visitor rarely needs more than one or two.
  contactPerVisitor: { keyPrefix: "contact_visitor", points: 5, durationSec: HOUR },
  contactPerIp: { keyPrefix: "contact_ip", points: 20, durationSec: HOUR },
  // Confirmed actions (a pack with `confirm`, e.g. post_json) reach the business's own systems: a visitor
  // rarely confirms more than a few, and a business's endpoint is not flooded by many visitors at once.
  confirmedPerVisitor: { keyPrefix: "confirmed_visitor", points: 10, durationSec: HOUR },
  confirmedPerBusiness: { keyPrefix: "confirmed_business", points: 300, durationSec: HOUR },
  // Ratings are cheap (one row replaced per answer) but still bounded.
  feedbackPerVisitor: { keyPrefix: "feedback_visitor", points: 30, durationSec: 60 },
} as const satisfies Record<string, LimiterSpec>;

/**
 * Live streams a visitor's panel holds open (src/widget/server/events.ts), counted at once in this process:
 * a few tabs per visitor; per network, enough for an office or a family behind one address, far below a
 * file-descriptor limit (a visitor id costs one session request, so the per-visitor bound alone let one
 * address hold thousands); per business, its share of the process. Not rates: a slot is free again the
 * moment its stream closes.
 */
export const HELD_STREAM_LIMITS = { perVisitor: 5, perIp: 20, perBusiness: 500 } as const;

/** "Try again in N minutes." for a refusal that lasts `retryAfterSec` (at least one minute). */
export function tryAgainIn(retryAfterSec: number): string {
  const minutes = Math.max(1, Math.ceil(retryAfterSec / 60));
  return `Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`;
}

/** The refusal of a limit: `what` says what happened ("Too many sign-ups from your network."), then when. */
export function tooMany(what: string, retryAfterSec: number): AppError {
  return new AppError("rate_limited", `${what} ${tryAgainIn(retryAfterSec)}`, { retryAfterSec });
}

/** Takes one point of `spec` for `key`, or throws tooMany(what, …) when the limit is reached. */
export async function takeOrRefuse(spec: LimiterSpec, key: string, what: string): Promise<void> {
  const wait = await limiter(spec).take(key);
  if (wait !== null) throw tooMany(what, wait);
}
