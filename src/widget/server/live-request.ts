// POST /api/widget/[key]/conversations/[id]/live: the visitor asks for a person in this conversation. Same key,
// origin and token rules as the contact endpoint, and the same per-visitor and per-address limit: a live
// request reaches a person as a contact request does. 200 with where the visitor stands: waiting (or already
// with a person), or `live: false` with why, and the panel shows the contact form instead.
// POST /api/widget/[key]/live is the same request from the panel's menu, with the conversation in the body,
// or none yet (the visitor has not written): then the conversation is created when someone can take it.
import "server-only";
import { z } from "zod";
import { AppError, errorResponse, isAppError } from "@/lib/errors";
import { takeLeadPoint } from "@/lib/leads/limits";
import { type NewConversation, requestPerson } from "@/lib/live/request";
import { log } from "@/lib/log";
import { clientIp } from "@/lib/security/client-ip";
import { langOf } from "@/shared/languages";
import { corsHeaders } from "./cors";
import type { WidgetStoreDeps } from "./deps";
import { assertActive, cleanPageUrl, dbStep, requireVisitor, siteOrigin } from "./guard";
import { guarded, readJson } from "./store-request";

const startSchema = z.object({
  conversationId: z.uuid().optional(),
  lang: z.string().max(35).optional(),
  pageUrl: z.string().max(4096).optional(),
});

/** The menu's request: a conversation named in the body, or a new one started from the page it names. */
export async function handleLiveStart(req: Request, key: string, deps: WidgetStoreDeps) {
  return handleLiveRequest(req, key, null, deps);
}

export async function handleLiveRequest(req: Request, key: string, id: string | null, deps: WidgetStoreDeps) {
  let cors = corsHeaders(null);
  try {
    const g = await guarded(req, key, deps);
    cors = g.cors;
    assertActive(g.tenant);
    const visitor = await requireVisitor(req, g.tenant, g.e.MICHI_AUTH_SECRET);
    let start: NewConversation | null = null;
    if (id === null) {
      const body = startSchema.safeParse(await readJson(req));
      if (!body.success) throw new AppError("invalid_input", "The request is not valid.");
      id = body.data.conversationId ?? null;
      const pageUrl = cleanPageUrl(body.data.pageUrl);
      const lang = langOf(body.data.lang);
      start = {
        origin: siteOrigin(pageUrl, req.headers.get("origin") ?? ""),
        pageUrl,
        locale: lang ?? g.tenant.bot.language ?? "",
      };
    }
    if (id !== null && !z.uuid().safeParse(id).success)
      throw new AppError("not_found", "This conversation was not found.");
    const ip = clientIp(req.headers, g.e.MICHI_TRUST_PROXY);
    await dbStep(() =>
      takeLeadPoint(
        { tenantId: g.tenant.id, visitorId: visitor.visitorId, ip },
        "Please wait a moment before asking for a person again.",
      ),
    );
    const who = { tenantId: g.tenant.id, visitorId: visitor.visitorId };
    const outcome = await dbStep(() =>
      requestPerson(g.db, id !== null ? { ...who, conversationId: id } : { ...who, start: start! }),
    );
    return Response.json(outcome, { headers: { ...cors, "Cache-Control": "no-store" } });
  } catch (err) {
    if (!isAppError(err)) log().error({ err }, "widget live request failed");
    return errorResponse(err, cors);
  }
}
