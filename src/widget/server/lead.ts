// POST /api/widget/[key]/contact: a visitor asks for a person (201). Same key, origin, token and body rules as
// the chat endpoint; it has its own rate limit and does not touch the token budget.
import "server-only";
import { errorResponse, isAppError } from "@/lib/errors";
import { takeLeadPoint } from "@/lib/leads/limits";
import { submitLead } from "@/lib/leads/submit";
import { log } from "@/lib/log";
import { clientIp } from "@/lib/security/client-ip";
import { HANDOFF_STRINGS } from "@/shared/handoff-words";
import { isLang, type Lang, langOf } from "@/shared/languages";
import { corsHeaders } from "./cors";
import type { WidgetStoreDeps } from "./deps";
import { assertActive, dbStep, requireVisitor } from "./guard";
import { guarded, readJson } from "./store-request";

/** The visitor's language as the panel reports it, else the bot's, else English. */
function visitorLang(requested: unknown, fallback: string | undefined): Lang {
  return langOf(requested) ?? langOf(fallback) ?? "en";
}

export async function handleLeadRequest(req: Request, key: string, deps: WidgetStoreDeps) {
  let cors = corsHeaders(null);
  try {
    const g = await guarded(req, key, deps);
    cors = g.cors;
    assertActive(g.tenant);
    const visitor = await requireVisitor(req, g.tenant, g.e.MICHI_AUTH_SECRET);
    const lang = visitorLang(new URL(req.url).searchParams.get("lang"), g.tenant.bot.language);
    const ip = clientIp(req.headers, g.e.MICHI_TRUST_PROXY);
    await dbStep(() =>
      takeLeadPoint(
        { tenantId: g.tenant.id, visitorId: visitor.visitorId, ip },
        HANDOFF_STRINGS[lang].failed,
      ),
    );
    const body = await readJson(req);
    const bodyLang = visitorLang(body.lang, lang);
    const { lead, confirmation } = await dbStep(() =>
      submitLead(
        g.db,
        {
          // The confirmation names the business (someone from it will answer), not the bot.
          tenant: {
            id: g.tenant.id,
            name: g.tenant.name,
            slug: g.tenant.slug,
            consents: g.tenant.bot.consents,
          },
          visitorId: visitor.visitorId,
          lang: bodyLang,
          body,
        },
        log().child({ tenantId: g.tenant.id }),
      ),
    );
    return Response.json(
      { id: lead.id, message: confirmation },
      { status: 201, headers: { ...cors, "Cache-Control": "no-store" } },
    );
  } catch (err) {
    if (!isAppError(err)) log().error({ err }, "widget contact request failed");
    return errorResponse(err, cors);
  }
}
