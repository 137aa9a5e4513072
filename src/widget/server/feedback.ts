// POST /api/widget/[key]/feedback: a visitor rates an answer (204). Same key, origin, token and body rules as
// the chat endpoint; it has its own rate limit and does not touch the token budget.
import "server-only";
import { errorResponse, isAppError } from "@/lib/errors";
import { rateAnswer } from "@/lib/feedback/rate";
import { takeFeedbackPoint } from "@/lib/leads/limits";
import { log } from "@/lib/log";
import { corsHeaders } from "./cors";
import type { WidgetStoreDeps } from "./deps";
import { assertActive, dbStep, requireVisitor } from "./guard";
import { guarded, readJson } from "./store-request";

export async function handleFeedback(req: Request, key: string, deps: WidgetStoreDeps) {
  let cors = corsHeaders(null);
  try {
    const g = await guarded(req, key, deps);
    cors = g.cors;
    assertActive(g.tenant);
    const visitor = await requireVisitor(req, g.tenant, g.e.MICHI_AUTH_SECRET);
    await dbStep(() => takeFeedbackPoint({ tenantId: g.tenant.id, visitorId: visitor.visitorId }));
    const body = await readJson(req);
    await dbStep(() => rateAnswer(g.db, { tenantId: g.tenant.id, visitorId: visitor.visitorId, body }));
    return new Response(null, { status: 204, headers: { ...cors, "Cache-Control": "no-store" } });
  } catch (err) {
    if (!isAppError(err)) log().error({ err }, "widget feedback request failed");
    return errorResponse(err, cors);
  }
}
