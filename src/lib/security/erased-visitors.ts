import "server-only";
import { createHash } from "node:crypto";
import type { ErasedVisitor } from "../db/schema";
import { VISITOR_RENEW_GRACE_SEC, VISITOR_TOKEN_TTL_SEC } from "./visitor-token";

// A visitor erased on request must not be able to carry on under the same widget token: the conversation they
// would reopen is gone, and a new one under the erased id would tie new data to the old person. Tokens are
// stateless, so the tenant row keeps a hash of each erased id until no token naming it can still be valid or
// renewed (its hour, the day of renewal grace, and the clock skew the verifier allows).

const CLOCK_SKEW_SEC = 5 * 60;
/** How long an erased id must be remembered: past this, no token of it verifies or renews anyway. */
export const ERASED_KEEP_SEC = VISITOR_TOKEN_TTL_SEC + VISITOR_RENEW_GRACE_SEC + CLOCK_SKEW_SEC;

/** The stored form of an erased id: bound to the tenant, and not the id itself. */
export function erasedVisitorHash(tenantId: string, visitorId: string): string {
  return createHash("sha256").update(`${tenantId}\u0000${visitorId}`).digest("base64url").slice(0, 32);
}

/** True while `visitorId` was erased and a token naming it could still be valid. */
export function isErasedVisitor(
  list: readonly ErasedVisitor[] | null | undefined,
  tenantId: string,
  visitorId: string,
  now: Date = new Date(),
): boolean {
  if (!list || list.length === 0) return false;
  const h = erasedVisitorHash(tenantId, visitorId);
  return list.some((e) => e.h === h && Date.parse(e.until) > now.getTime());
}

/** The list after erasing `visitorIds`: the new entries added, the expired ones dropped. */
export function withErasedVisitors(
  list: readonly ErasedVisitor[] | null | undefined,
  tenantId: string,
  visitorIds: readonly string[],
  now: Date = new Date(),
): ErasedVisitor[] {
  const until = new Date(now.getTime() + ERASED_KEEP_SEC * 1000).toISOString();
  const added = new Set(visitorIds.map((v) => erasedVisitorHash(tenantId, v)));
  const kept = (list ?? []).filter((e) => Date.parse(e.until) > now.getTime() && !added.has(e.h));
  return [...kept, ...[...added].map((h) => ({ h, until }))];
}
