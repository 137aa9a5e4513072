import "server-only";
import { AppError } from "../errors";
import { LIMITS } from "../security/limits";
import { limiter } from "../security/rate-limit";

// Contact requests reach a person's inbox, so they are limited far below chat messages; ratings are cheap but
// still bounded. The numbers are in src/lib/security/limits.ts.

export const LEAD_PER_VISITOR_PER_HOUR = LIMITS.contactPerVisitor.points;

export async function takeLeadPoint(
  keys: { tenantId: string; visitorId: string; ip: string },
  message: string,
): Promise<void> {
  const waits = await Promise.all([
    limiter(LIMITS.contactPerVisitor).take(`${keys.tenantId}:${keys.visitorId}`),
    limiter(LIMITS.contactPerIp).take(`${keys.tenantId}:${keys.ip}`),
  ]);
  const wait = Math.max(0, ...waits.map((w) => w ?? 0));
  if (wait > 0) throw new AppError("rate_limited", message, { retryAfterSec: wait });
}

export async function takeFeedbackPoint(keys: { tenantId: string; visitorId: string }): Promise<void> {
  const wait = await limiter(LIMITS.feedbackPerVisitor).take(`${keys.tenantId}:${keys.visitorId}`);
  if (wait)
    throw new AppError("rate_limited", "Please wait a moment before rating again.", { retryAfterSec: wait });
}
