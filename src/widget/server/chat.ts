import "server-only";
import { eventStream, SSE_HEADERS } from "@/lib/chat/events";
import {
  acquireStreamSlot,
  type ChatKeys,
  type LimitSettings,
  limitSettings,
  ratePointsForTurn,
  type TurnLimits,
  takeRatePoints,
  takeSessionPoint,
} from "@/lib/chat/limits";
import { createModelClient, modelProfile, modelStatus, resolveModel } from "@/lib/chat/model";
import { isTenantChanged, openTurn } from "@/lib/chat/persist";
import { executeTurn } from "@/lib/chat/turn";
import type { DbHandle } from "@/lib/db";
import type { Env } from "@/lib/env";
import { AppError, errorResponse, isAppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { noteTenant } from "@/lib/request-context";
import { clientIp } from "@/lib/security/client-ip";
import {
  bearerToken,
  renewableVisitorId,
  signVisitorToken,
  type VisitorClaims,
} from "@/lib/security/visitor-token";
import { isLang, type Lang } from "@/shared/languages";
import { corsHeaders, preflightHeaders } from "./cors";
import type { WidgetDeps, WidgetStoreDeps } from "./deps";
import {
  allowedOrigin,
  assertActive,
  dbStep,
  markWidgetSeen,
  parseChatBody,
  readTenantForKey,
  requireVisitor,
  siteOrigin,
  tenantForKey,
  type WidgetTenant,
} from "./guard";
import { forgetTenant, recallTenant, rememberTenant } from "./known-tenants";

// The widget endpoints as plain functions of a Request, so the route files stay thin and tests can call them
// with their own database, packs and model client. Order of checks: key → origin → tenant status → token →
// body (capped while streaming) → model → stream slot → limits → budget → the visitor's conversation → the
// visitor's message is stored → packs → the stream starts (limits to message in one statement on Postgres,
// see openTurn; with another limits store, or a refused body, the limits are taken on their own).

type Found = { tenant: WidgetTenant; origin: string; cors: Record<string, string> };

async function guardTenantAndOrigin(req: Request, key: string, db: DbHandle, e: Env): Promise<Found> {
  const tenant = await tenantForKey(db, key);
  const origin = allowedOrigin(req, tenant, e.MICHI_PUBLIC_URL);
  return { tenant, origin, cors: corsHeaders(origin) };
}

async function openDb(deps: Pick<WidgetDeps, "db">) {
  return dbStep(() => deps.db());
}

export async function handlePreflight(req: Request, key: string, deps: WidgetStoreDeps) {
  try {
    const e = deps.env();
    const { origin } = await guardTenantAndOrigin(req, key, await openDb(deps), e);
    return new Response(null, { status: 204, headers: preflightHeaders(origin) });
  } catch (err) {
    return errorResponse(err, corsHeaders(null));
  }
}

export async function handleSession(req: Request, key: string, deps: WidgetStoreDeps) {
  let cors = corsHeaders(null);
  try {
    const e = deps.env();
    const db = await openDb(deps);
    const found = await guardTenantAndOrigin(req, key, db, e);
    cors = found.cors;
    assertActive(found.tenant);
    const ip = clientIp(req.headers, e.MICHI_TRUST_PROXY);
    await dbStep(() => takeSessionPoint(limitSettings(e, found.tenant.rateLimits), found.tenant.id, ip));
    const visitorId = renewableVisitorId(e.MICHI_AUTH_SECRET, bearerToken(req.headers), found.tenant.id);
    const { token, claims } = signVisitorToken(e.MICHI_AUTH_SECRET, { tenantId: found.tenant.id, visitorId });
    if (found.origin !== new URL(e.MICHI_PUBLIC_URL).origin) {
      // The admin checklist's "widget seen on your site"; a failure here must not stop the visitor.
      await markWidgetSeen(db, found.tenant.id).catch((err) =>
        log().warn({ err, tenantId: found.tenant.id }, "could not record widget_seen_at"),
      );
    }
    return Response.json(
      { token, expiresAt: claims.expiresAt.toISOString() },
      { headers: { ...cors, "Cache-Control": "no-store" } },
    );
  } catch (err) {
    return errorResponse(err, cors);
  }
}

function pickLang(requested: string | undefined, fallback: string | undefined): Lang | undefined {
  for (const candidate of [requested, fallback]) {
    const base = candidate?.toLowerCase().split(/[-_]/)[0];
    if (isLang(base)) return base;
  }
  return undefined;
}

/** What the guard established for one chat request, from the tenant row it checked. */
type ChatGuard = Found & {
  visitor: VisitorClaims;
  settings: LimitSettings;
  keys: ChatKeys;
  /** The version of a remembered tenant row, for the opening statement to confirm; null when just read. */
  seen: string | null;
};

function checkChat(
  req: Request,
  tenant: WidgetTenant,
  e: Env,
  onCors: (cors: Record<string, string>) => void,
): Omit<ChatGuard, "seen"> {
  const origin = allowedOrigin(req, tenant, e.MICHI_PUBLIC_URL);
  const cors = corsHeaders(origin);
  // Refusals past this point carry the headers that let the widget read them.
  onCors(cors);
  assertActive(tenant);
  const visitor = requireVisitor(req, tenant, e.MICHI_AUTH_SECRET);
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
      const checked = checkChat(req, known.tenant, e, opts.onCors);
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
  return { ...checkChat(req, read.tenant, e, opts.onCors), seen: null };
}

export async function handleChat(req: Request, key: string, deps: WidgetDeps) {
  let cors = corsHeaders(null);
  let release: (() => void) | undefined;
  try {
    const e = deps.env();
    const db = await openDb(deps);
    const guard = (fresh: boolean) =>
      guardChat(req, key, db, e, {
        fresh,
        onCors: (c) => {
          cors = c;
        },
      });
    let g = await guard(false);
    // Every request the guard let through costs a point, whatever its body. On Postgres the points ride
    // along with the statement that opens the turn (one round trip fewer); a request refused before that
    // statement (a bad or oversized body, no model) takes them on its own, as does a store that cannot join
    // the statement (Redis, memory), so a flood of bad bodies still costs a point each.
    const inTurn = await ratePointsForTurn(g.settings, g.keys);
    if (!inTurn && g.seen) {
      // Only the opening statement can confirm a remembered row, and with this store the points are taken
      // before it: take them against the row as it is now.
      g = await guard(true);
    }
    if (!inTurn) await dbStep(() => takeRatePoints(g.settings, g.keys));
    const status = modelStatus(e);
    let body: Awaited<ReturnType<typeof parseChatBody>>;
    try {
      body = await parseChatBody(req);
      if (!status.configured) {
        throw new AppError("model_not_configured", "The chat assistant is not available right now.");
      }
    } catch (err) {
      if (inTurn) await dbStep(() => takeRatePoints(g.settings, g.keys));
      throw err;
    }
    const open = (checked: ChatGuard, limits: TurnLimits | null) =>
      openTurn(
        db,
        {
          tenantId: checked.tenant.id,
          visitorId: checked.visitor.visitorId,
          conversationId: body.conversationId,
          origin: siteOrigin(body.pageUrl, checked.origin),
          pageUrl: body.pageUrl,
          locale: pickLang(body.lang, checked.tenant.bot.language) ?? body.lang?.slice(0, 35) ?? "",
          message: body.message,
          retryOf: body.retryOf,
          historyMaxChars: e.MICHI_HISTORY_MAX_CHARS,
          budget: checked.tenant.monthlyTokenBudget ?? e.MICHI_DEFAULT_MONTHLY_TOKENS,
          limits,
          seen: checked.seen,
        },
        {
          admit: () => {
            release = acquireStreamSlot(checked.tenant.id, checked.settings.maxStreams);
          },
          loadEnabled: deps.packs.loadEnabled,
        },
      );
    let start: Awaited<ReturnType<typeof openTurn>>;
    try {
      start = await open(g, inTurn);
    } catch (err) {
      if (!isTenantChanged(err)) throw err;
      // The remembered row changed since it was read: nothing was taken or written. Guard again on the row
      // as it is now (it may refuse), and open the turn with that.
      release?.();
      release = undefined;
      forgetTenant(db, key);
      g = await guard(true);
      start = await open(g, inTurn && (await ratePointsForTurn(g.settings, g.keys)));
    }

    const { tenant } = g;
    const lang = pickLang(body.lang, tenant.bot.language);
    const slot = release;
    const model = resolveModel(tenant.bot, status.models);
    const turnLog = log().child({ tenantId: tenant.id, conversationId: start.conversationId });
    const stream = eventStream(
      (emit, signal) => {
        emit({
          type: "start",
          data: { conversationId: start.conversationId, visitorMessageId: start.userMessageId },
        });
        return executeTurn(
          {
            db,
            env: e,
            client: (deps.modelClient ?? createModelClient)(e, model),
            model,
            ...modelProfile(e, model),
            packs: deps.packs,
            enabled: start.enabled,
            tenant: { id: tenant.id, name: tenant.name, bot: tenant.bot },
            conversationId: start.conversationId,
            history: start.history,
            message: start.message,
            lang,
            log: turnLog,
            storeRetry: deps.storeRetry,
          },
          emit,
          signal,
        )
          .then(() => undefined)
          .finally(slot);
      },
      { signal: req.signal },
    );
    release = undefined; // the stream owns the slot now
    return new Response(stream, { headers: { ...SSE_HEADERS, ...cors } });
  } catch (err) {
    release?.();
    if (!isAppError(err)) log().error({ err }, "widget chat request failed");
    return errorResponse(err, cors);
  }
}
