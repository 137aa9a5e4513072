import "server-only";
import { LIMITS, tryAgainIn } from "../security/limits";
import { type LimiterSpec, limiter } from "../security/rate-limit";

// Sign-in throttling. Only failures count. Per e-mail+IP: after SIGN_IN_PAIR_FAILURES wrong passwords in a
// row the pair is blocked, and while blocked even the right password is refused, so guessing cannot continue
// at full speed. Per IP: a ceiling on failures across all e-mails, against spraying many accounts. The
// numbers are in src/lib/security/limits.ts.

export type ThrottleSpecs = { pair: LimiterSpec; ip: LimiterSpec };

export const DEFAULT_THROTTLE: ThrottleSpecs = { pair: LIMITS.signInPair, ip: LIMITS.signInIp };

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
  return `Too many attempts. ${tryAgainIn(retryAfterSec)}`;
}
