import "server-only";
import { type LimiterSpec, limiter } from "../security/rate-limit";

// Sign-in throttling. Only failures count. Per e-mail+IP: after MAX_PAIR_FAILURES wrong passwords in a row
// the pair is blocked, and while blocked even the right password is refused, so guessing cannot continue
// at full speed. Per IP: a ceiling on failures across all e-mails, against spraying many accounts.

export const MAX_PAIR_FAILURES = 10;

export type ThrottleSpecs = { pair: LimiterSpec; ip: LimiterSpec };

export const DEFAULT_THROTTLE: ThrottleSpecs = {
  // The limiter refuses the consume that goes past `points`, and that one starts the block: with points
  // MAX-1 the MAX-th failure is still checked, then the pair is blocked before attempt MAX+1.
  pair: {
    keyPrefix: "signin_pair",
    points: MAX_PAIR_FAILURES - 1,
    durationSec: 60 * 60,
    blockDurationSec: 15 * 60,
  },
  ip: { keyPrefix: "signin_ip", points: 99, durationSec: 60 * 60, blockDurationSec: 60 * 60 },
};

export type SignInThrottle = {
  /** Seconds until this e-mail+IP may try again; 0 when it may try now. */
  blockedFor(email: string, ip: string): Promise<number>;
  failed(email: string, ip: string): Promise<void>;
  succeeded(email: string, ip: string): Promise<void>;
};

const pairKey = (email: string, ip: string) => `${email.trim().toLowerCase()}|${ip}`;

export function signInThrottle(specs: ThrottleSpecs = DEFAULT_THROTTLE): SignInThrottle {
  const pair = limiter(specs.pair);
  const ip = limiter(specs.ip);
  return {
    async blockedFor(email, addr) {
      const [a, b] = await Promise.all([pair.blockedFor(pairKey(email, addr)), ip.blockedFor(addr)]);
      return Math.max(a, b);
    },
    async failed(email, addr) {
      await Promise.all([pair.take(pairKey(email, addr)), ip.take(addr)]);
    },
    async succeeded(email, addr) {
      await pair.reset(pairKey(email, addr));
    },
  };
}

export function throttleMessage(retryAfterSec: number): string {
  const minutes = Math.max(1, Math.ceil(retryAfterSec / 60));
  return `Too many attempts. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`;
}
