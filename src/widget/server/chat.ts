import "server-only";
import { eventStream, SSE_HEADERS } from "@/lib/chat/events";
import { limitSettings, type TurnLimits, takeSessionPoint } from "@/lib/chat/limits";
import { isTenantChanged } from "@/lib/chat/persist";
import { type OpenedTurn, startTurn, type TurnDeps, type TurnInput } from "@/lib/chat/run-turn";
import { latestConversationOf } from "@/lib/db/queries/visitor-identity";
import { errorResponse, isAppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { clientIp } from "@/lib/security/client-ip";
import { isErasedVisitor } from "@/lib/security/erased-visitors";
import { verifiedVisitorId } from "@/lib/security/visitor-identity";
import { bearerToken, renewableVisitorId, signVisitorToken } from "@/lib/security/visitor-token";
import { langOf } from "@/shared/languages";
import { admitChat, type ChatBody, type ChatGuard, guardTenantAndOrigin } from "./chat-guard";
import { corsHeaders, preflightHeaders } from "./cors";
import type { WidgetDeps, WidgetStoreDeps } from "./deps";
import { assertActive, dbStep, markWidgetSeen, siteOrigin, verifiedVisitor } from "./guard";

// The widget endpoints as plain functions of a Request, so the route files stay thin and tests can call them
// with their own database, packs and model client. The chat is guard → turn → SSE: chat-guard.ts runs the
// HTTP checks (key → origin → tenant status → token → rate points → body → model), src/lib/chat/run-turn.ts
// opens the turn (stream slot → limits → budget → the visitor's conversation → the visitor's message stored →
// packs, in one statement on Postgres) and runs it, and the events go out as SSE (src/lib/chat/events.ts).

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
    const renewable = renewableVisitorId(e.MICHI_AUTH_SECRET, bearerToken(req.headers), found.tenant.id);
    // An erased visitor's token is not renewed: the widget starts afresh under a new id.
    const visitorId =
      renewable && !isErasedVisitor(found.tenant.erasedVisitors, found.tenant.id, renewable)
        ? renewable
        : undefined;
    const { token, claims } = signVisitorToken(e.MICHI_AUTH_SECRET, { tenantId: found.tenant.id, visitorId });
    // A verified visitor's conversation on another device: the panel opens it when it has none of its own.
    const verified = await verifiedVisitor(req, found.tenant);
    const latest = verified
      ? await dbStep(() =>
          db.forTenant(found.tenant.id, (tx) =>
            latestConversationOf(tx, verifiedVisitorId(found.tenant.id, verified.id)),
          ),
        )
      : null;
    if (found.origin !== new URL(e.MICHI_PUBLIC_URL).origin) {
      // The admin checklist's "widget seen on your site"; a failure here must not stop the visitor.
      await markWidgetSeen(db, found.tenant.id).catch((err) =>
        log().warn({ err, tenantId: found.tenant.id }, "could not record widget_seen_at"),
      );
    }
    return Response.json(
      {
        token,
        expiresAt: claims.expiresAt.toISOString(),
        ...(verified ? { verified: true, conversationId: latest } : {}),
      },
      { headers: { ...cors, "Cache-Control": "no-store" } },
    );
  } catch (err) {
    return errorResponse(err, cors);
  }
}

/** The turn the guard's checks let through, in the turn's own terms. */
function turnInput(checked: ChatGuard, body: ChatBody, limits: TurnLimits | null): TurnInput {
  const { tenant } = checked;
  return {
    tenant,
    visitorId: checked.visitor.visitorId,
    visitor: checked.visitor.verified,
    conversationId: body.conversationId,
    message: body.message,
    retryOf: body.retryOf,
    origin: siteOrigin(body.pageUrl, checked.origin),
    pageUrl: body.pageUrl,
    // The turn asks for the answer in the locale's language when it is one the bot speaks.
    locale: langOf(body.lang) ?? langOf(tenant.bot.language) ?? body.lang ?? "",
    ip: checked.keys.ip,
    limits,
    seen: checked.seen,
    // The panel shows confirmation cards with Confirm and Cancel buttons.
    buttons: true,
  };
}

/** The widget's chat: guard → turn → SSE. */
export async function handleChat(req: Request, key: string, deps: WidgetDeps) {
  let cors = corsHeaders(null);
  let turn: OpenedTurn | undefined;
  try {
    const e = deps.env();
    const db = await openDb(deps);
    const admitted = await admitChat(req, key, db, e, (c) => {
      cors = c;
    });
    const turnDeps: TurnDeps = {
      db,
      env: e,
      packs: deps.packs,
      modelClient: deps.modelClient,
      storeRetry: deps.storeRetry,
      wakeLive: deps.wakeLive,
    };
    try {
      turn = await startTurn(turnDeps, turnInput(admitted.guard, admitted.body, admitted.limits));
    } catch (err) {
      if (!isTenantChanged(err)) throw err;
      const { guard, limits } = await admitted.again();
      turn = await startTurn(turnDeps, turnInput(guard, admitted.body, limits));
    }
    const opened = turn;
    const stream = eventStream((emit, signal) => opened.run({ emit, signal }).then(() => undefined), {
      signal: req.signal,
    });
    turn = undefined; // the stream runs the turn, and frees its slot, from here on
    return new Response(stream, { headers: { ...SSE_HEADERS, ...cors } });
  } catch (err) {
    turn?.cancel();
    if (!isAppError(err)) log().error({ err }, "widget chat request failed");
    return errorResponse(err, cors);
  }
}
