// GET /api/widget/[key]/conversations/[id]/events: the visitor's live stream of one conversation (issue #28),
// Server-Sent Events read from the live log after Last-Event-ID (the header, or `lastEventId` in the query,
// which the panel sets when it reconnects). Same key, origin and token rules as the history; a conversation of
// another visitor (or another tenant) is simply not found. Only what a visitor may see: never a note, and
// a person by name and photo, never by user id (visitor-agent.ts).
import "server-only";
import { SSE_HEADERS } from "@/lib/chat/events";
import { findVisitorConversation } from "@/lib/db/queries/conversations";
import { errorResponse } from "@/lib/errors";
import { liveEventStream } from "@/lib/live/stream";
import { clientIp } from "@/lib/security/client-ip";
import { parseLastEventId, VISITOR_LIVE_KINDS } from "@/shared/live-events";
import { parseAcceptLanguage, pickLang } from "@/shared/pick-lang";
import { corsHeaders } from "./cors";
import type { WidgetStoreDeps } from "./deps";
import { dbStep } from "./guard";
import { holdStreamSlots } from "./held-streams";
import { admitConversationRead } from "./history";
import { visitorSse } from "./visitor-agent";

/** A stream lives until the visitor's token expires, and at most this long: then the panel reconnects. */
const MAX_STREAM_MS = 30 * 60_000;

type LiveStreamOptions = { heartbeatMs?: number; resyncMs?: number; maxMs?: number };

export async function handleLiveEvents(
  req: Request,
  key: string,
  id: string,
  deps: WidgetStoreDeps,
  opts: LiveStreamOptions = {},
): Promise<Response> {
  let cors = corsHeaders(null);
  try {
    const { db, tenant, visitor, notFound, e } = await admitConversationRead(req, key, id, deps, (h) => {
      cors = h;
    });
    const mine = await dbStep(() =>
      db.forTenant(tenant.id, (tx) => findVisitorConversation(tx, id, visitor.visitorId)),
    );
    if (!mine) throw notFound;
    const url = new URL(req.url);
    // Held streams are bounded per visitor, per network and per business (HELD_STREAM_LIMITS).
    const lang = pickLang(
      url.searchParams.get("lang"),
      tenant.bot.language,
      parseAcceptLanguage(req.headers.get("accept-language")),
    );
    const release = holdStreamSlots(
      { tenantId: tenant.id, visitorId: visitor.visitorId, ip: clientIp(req.headers, e.MICHI_TRUST_PROXY) },
      lang,
    );
    let body: ReadableStream<Uint8Array>;
    try {
      body = liveEventStream({
        db,
        tenantId: tenant.id,
        conversationId: id,
        kinds: VISITOR_LIVE_KINDS,
        after: parseLastEventId(req.headers.get("last-event-id") ?? url.searchParams.get("lastEventId")),
        signal: req.signal,
        maxMs: Math.min(MAX_STREAM_MS, visitor.expiresAt.getTime() - Date.now()),
        ...opts,
        onClose: release,
      });
    } catch (err) {
      release();
      throw err;
    }
    // The log names a person by user id; the visitor gets their name and an opaque photo address instead.
    const view = { key, tenantId: tenant.id, visitorId: visitor.visitorId, authSecret: e.MICHI_AUTH_SECRET };
    return new Response(visitorSse(view, body), { headers: { ...SSE_HEADERS, ...cors } });
  } catch (err) {
    return errorResponse(err, cors);
  }
}
