import { tenantRoute } from "@/lib/auth/guard";
import type { RouteContext } from "@/lib/auth/route";
import { SSE_HEADERS } from "@/lib/chat/events";
import { watchLiveEvents } from "@/lib/live/watch";
import { parseLastEventId } from "@/shared/live-events";

// GET /api/admin/[tenant]/live/events: the tenant's live events for the console, as Server-Sent Events
// resumable by Last-Event-ID (EventSource sends it on reconnect; `after` in the query for the first
// connection). Every member may watch; non-members get 404 from the guard.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const guarded = tenantRoute("viewer", async (req, ctx) => {
  const url = new URL(req.url);
  const given = req.headers.get("last-event-id") ?? url.searchParams.get("after");
  const after = given === null ? null : parseLastEventId(given);
  const body = await watchLiveEvents(ctx, { after, signal: req.signal });
  return new Response(body, { headers: SSE_HEADERS });
});

export async function GET(req: Request, context: RouteContext): Promise<Response> {
  const res = await guarded(req, context);
  // The guard marks every admin answer no-store; a stream also needs no-transform, or the server's gzip
  // would hold events back until its buffer fills.
  if (res.headers.get("content-type")?.startsWith("text/event-stream"))
    res.headers.set("Cache-Control", "no-store, no-transform");
  return res;
}
