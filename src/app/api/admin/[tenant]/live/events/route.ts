import { tenantRoute } from "@/lib/auth/guard";
import { SSE_HEADERS } from "@/lib/chat/events";
import { watchLiveEvents } from "@/lib/live/watch";
import { parseLastEventId } from "@/shared/live-events";

// GET /api/admin/[tenant]/live/events: the tenant's live events for the console, as Server-Sent Events
// resumable by Last-Event-ID (EventSource sends it on reconnect; `after` in the query for the first
// connection). Every member may watch; non-members get 404 from the guard.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = tenantRoute("viewer", async (req, ctx) => {
  const url = new URL(req.url);
  const given = req.headers.get("last-event-id") ?? url.searchParams.get("after");
  const after = given === null ? null : parseLastEventId(given);
  const body = await watchLiveEvents(ctx, { after, signal: req.signal });
  return new Response(body, { headers: SSE_HEADERS });
});
