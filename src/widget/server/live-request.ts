// POST /api/widget/[key]/conversations/[id]/live: the visitor asks for a person in this conversation. Same key,
// origin and token rules as the contact endpoint, and the same per-visitor and per-address limit: a live
// request reaches a person as a contact request does. 200 with where the visitor stands: waiting (or already
// with a person), or `live: false` with why, and the panel shows the contact form instead.
import "server-only";
import { z } from "zod";
import { AppError, errorResponse, isAppError } from "@/lib/errors";
import { takeLeadPoint } from "@/lib/leads/limits";
import { requestPerson } from "@/lib/live/request";
import { log } from "@/lib/log";
import { clientIp } from "@/lib/security/client-ip";
import { corsHeaders } from "./cors";
import type { WidgetStoreDeps } from "./deps";
import { assertActive, dbStep, requireVisitor } from "./guard";
import { guarded } from "./store-request";

export async function handleLiveRequest(req: Request, key: string, id: string, deps: WidgetStoreDeps) {
  let cors = corsHeaders(null);
  try {
    const g = await guarded(req, key, deps);
    cors = g.cors;
    assertActive(g.tenant);
    const visitor = requireVisitor(req, g.tenant, g.e.MICHI_AUTH_SECRET);
    if (!z.uuid().safeParse(id).success) throw new AppError("not_found", "This conversation was not found.");
    const ip = clientIp(req.headers, g.e.MICHI_TRUST_PROXY);
    await dbStep(() =>
      takeLeadPoint(
        { tenantId: g.tenant.id, visitorId: visitor.visitorId, ip },
        "Please wait a moment before asking for a person again.",
      ),
    );
    const outcome = await dbStep(() =>
      requestPerson(g.db, { tenantId: g.tenant.id, visitorId: visitor.visitorId, conversationId: id }),
    );
    return Response.json(outcome, { headers: { ...cors, "Cache-Control": "no-store" } });
  } catch (err) {
    if (!isAppError(err)) log().error({ err }, "widget live request failed");
    return errorResponse(err, cors);
  }
}
