import "server-only";
import { AppError } from "../errors";
import { limiter } from "../security/rate-limit";

// Contact requests reach a person's inbox, so they are limited far below chat messages: a visitor rarely needs
// more than one or two, and a script sending hundreds would flood the business. Ratings are cheap (one row
// replaced per answer) but still bounded.

export const LEAD_PER_VISITOR_PER_HOUR = 5;
export const LEAD_PER_IP_PER_HOUR = 20;
export const FEEDBACK_PER_VISITOR_PER_MIN = 30;

export async function takeLeadPoint(
  keys: { tenantId: string; visitorId: string; ip: string },
  message: string,
): Promise<void> {
  const waits = await Promise.all([
    limiter({ keyPrefix: "contact_visitor", points: LEAD_PER_VISITOR_PER_HOUR, durationSec: 3600 }).take(
      `${keys.tenantId}:${keys.visitorId}`,
    ),
    limiter({ keyPrefix: "contact_ip", points: LEAD_PER_IP_PER_HOUR, durationSec: 3600 }).take(
      `${keys.tenantId}:${keys.ip}`,
    ),
  ]);
  const wait = Math.max(0, ...waits.map((w) => w ?? 0));
  if (wait > 0) throw new AppError("rate_limited", message, { retryAfterSec: wait });
}

export async function takeFeedbackPoint(keys: { tenantId: string; visitorId: string }): Promise<void> {
  const wait = await limiter({
    keyPrefix: "feedback_visitor",
    points: FEEDBACK_PER_VISITOR_PER_MIN,
    durationSec: 60,
  }).take(`${keys.tenantId}:${keys.visitorId}`);
  if (wait)
    throw new AppError("rate_limited", "Please wait a moment before rating again.", { retryAfterSec: wait });
}
