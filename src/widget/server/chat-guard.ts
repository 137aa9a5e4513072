import "server-only";
import {
  type ChatKeys,
  type LimitSettings,
  limitSettings,
  ratePointsForTurn,
  type TurnLimits,
  takeRatePoints,
} from "@/lib/chat/limits";
import { modelStatus } from "@/lib/chat/model";
import type { DbHandle } from "@/lib/db";
import type { Env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { noteTenant } from "@/lib/request-context";
import { clientIp } from "@/lib/security/client-ip";
import { corsHeaders } from "./cors";
import {
  allowedOrigin,
  assertActive,
  dbStep,
  parseChatBody,
  readTenantForKey,
  requireVisitor,
  tenantForKey,
  type WidgetTenant,
  type WidgetVisitor,
} from "./guard";
import { forgetTenant, recallTenant, rememberTenant } from "./known-tenants";

// The widget chat's HTTP checks, in the order of docs/chat-engine.md: key → origin → tenant status → token →
// rate points → body → model. What passes is a tenant, a visitor and a message the turn can trust.

export type Found = { tenant: WidgetTenant; origin: string; cors: Record<string, string> };

export async function guardTenantAndOrigin(req: Request, key: string, db: DbHandle, e: Env): Promise<Found> {
  const tenant = await tenantForKey(db, key);
  const origin = allowedOrigin(req, tenant, e.MICHI_PUBLIC_URL);
  return { tenant, origin, cors: corsHeaders(origin) };
}

/** What the guard established for one chat request, from the tenant row it checked. */
export type ChatGuard = Found & {
  visitor: WidgetVisitor;
  settings: LimitSettings;
  keys: ChatKeys;
  /** The version of a remembered tenant row, for the opening statement to confirm; null when just read. */
  seen: string | null;
};

async function checkChat(
  req: Request,
  tenant: WidgetTenant,
  e: Env,
  onCors: (cors: Record<string, string>) => void,
): Promise<Omit<ChatGuard, "seen">> {
  const origin = allowedOrigin(req, tenant, e.MICHI_PUBLIC_URL);
  const cors = corsHeaders(origin);
  // Refusals past this point carry the headers that let the widget read them.
  onCors(cors);
  assertActive(tenant);
  const visitor = await requireVisitor(req, tenant, e.MICHI_AUTH_SECRET);
  return {
    tenant,
    origin,
    cors,
    visitor,
    settings: limitSettings(e, tenant.rateLimits),
    keys: {
      tenantId: tenant.id,
      visitorId: visitor.visitorId,
      ip: clientIp(req.headers, e.MICHI_TRUST_PROXY),
    },
  };
}

/**
 * The chat's guard, from the tenant row remembered for this key when there is one (see known-tenants.ts) and
 * it lets the request through; otherwise, or with `fresh`, from the row read now. Refusals always come from a
 * row read now.
 */
async function guardChat(
  req: Request,
  key: string,
  db: DbHandle,
  e: Env,
  opts: { fresh: boolean; onCors: (cors: Record<string, string>) => void },
): Promise<ChatGuard> {
  const known = opts.fresh ? null : recallTenant(db, key);
  if (known) {
    try {
      const checked = await checkChat(req, known.tenant, e, opts.onCors);
      noteTenant(known.tenant.id);
      return { ...checked, seen: known.seen };
    } catch {
      forgetTenant(db, key);
    }
  }
  // Decided again on the row as it is now, headers included: a key that no longer exists gets none.
  opts.onCors(corsHeaders(null));
  const read = await readTenantForKey(db, key);
  rememberTenant(db, key, read);
  return { ...(await checkChat(req, read.tenant, e, opts.onCors)), seen: null };
}

export type ChatBody = Awaited<ReturnType<typeof parseChatBody>>;

/** A chat request the guard let through: who asks, what, and the limits the opening statement still takes. */
export type AdmittedChat = {
  guard: ChatGuard;
  body: ChatBody;
  /** The rate limits for the opening statement to take; null when they are taken already. */
  limits: TurnLimits | null;
  /**
   * After the opening statement found the remembered tenant row changed (nothing was taken or written): the
   * guard again on the row as it is now, which may refuse, and the limits for the next attempt.
   */
  again(): Promise<{ guard: ChatGuard; limits: TurnLimits | null }>;
};

/**
 * Runs the chat's checks up to the message. `onCors` learns the headers each refusal must carry, as soon as
 * they are known.
 */
export async function admitChat(
  req: Request,
  key: string,
  db: DbHandle,
  e: Env,
  onCors: (cors: Record<string, string>) => void,
): Promise<AdmittedChat> {
  const guard = (fresh: boolean) => guardChat(req, key, db, e, { fresh, onCors });
  let g = await guard(false);
  // Every request the guard let through costs a point, whatever its body. On Postgres the points ride along
  // with the statement that opens the turn (one round trip fewer); a request refused before that statement (a
  // bad or oversized body, no model) takes them on its own, as does a store that cannot join the statement
  // (Redis, memory), so a flood of bad bodies still costs a point each.
  const inTurn = await ratePointsForTurn(g.settings, g.keys);
  if (!inTurn && g.seen) {
    // Only the opening statement can confirm a remembered row, and with this store the points are taken
    // before it: take them against the row as it is now.
    g = await guard(true);
  }
  if (!inTurn) await dbStep(() => takeRatePoints(g.settings, g.keys));
  let body: ChatBody;
  try {
    body = await parseChatBody(req);
    if (!modelStatus(e).configured) {
      throw new AppError("model_not_configured", "The chat assistant is not available right now.");
    }
  } catch (err) {
    if (inTurn) await dbStep(() => takeRatePoints(g.settings, g.keys));
    throw err;
  }
  return {
    guard: g,
    body,
    limits: inTurn,
    async again() {
      forgetTenant(db, key);
      const fresh = await guard(true);
      return { guard: fresh, limits: inTurn && (await ratePointsForTurn(fresh.settings, fresh.keys)) };
    },
  };
}
