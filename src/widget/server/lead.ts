// POST /api/widget/[key]/contact (a visitor asks for a person; 201) and POST /api/widget/[key]/feedback (a
// visitor rates an answer; 204). Same key, origin, token and body rules as the chat endpoint; each has its own
// rate limit and neither touches the token budget.
import "server-only";
import { AppError, errorResponse, isAppError } from "@/lib/errors";
import { rateAnswer } from "@/lib/feedback/rate";
import { submitContact } from "@/lib/leads/contact";
import { takeContactPoint, takeFeedbackPoint } from "@/lib/leads/limits";
import { log } from "@/lib/log";
import { readCappedText } from "@/lib/security/body";
import { clientIp } from "@/lib/security/client-ip";
import { isLang, type Lang } from "@/shared/languages";
import { HANDOFF_STRINGS } from "../handoff-i18n";
import { botName } from "../public-config";
import { corsHeaders } from "./cors";
import type { WidgetStoreDeps } from "./deps";
import { allowedOrigin, assertActive, dbStep, requireVisitor, tenantForKey } from "./guard";

const BODY_MAX_BYTES = 16 * 1024;

async function readJson(req: Request): Promise<Record<string, unknown>> {
  const raw = await readCappedText(req, BODY_MAX_BYTES);
  try {
    const v: unknown = JSON.parse(raw);
    if (v && typeof v === "object" && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // answered below
  }
  throw new AppError("invalid_input", "The request is not valid JSON.", {
    fieldErrors: { body: ["The request is not valid JSON."] },
  });
}

/** The visitor's language as the panel reports it, else the bot's, else English. */
function langOf(requested: unknown, fallback: string | undefined): Lang {
  for (const c of [requested, fallback]) {
    const base = typeof c === "string" ? c.toLowerCase().split(/[-_]/)[0] : undefined;
    if (isLang(base)) return base;
  }
  return "en";
}

async function guarded(req: Request, key: string, deps: WidgetStoreDeps) {
  const e = deps.env();
  const db = await dbStep(() => deps.db());
  const tenant = await tenantForKey(db, key);
  const cors = corsHeaders(allowedOrigin(req, tenant, e.MICHI_PUBLIC_URL));
  return { e, db, tenant, cors };
}

export async function handleContact(req: Request, key: string, deps: WidgetStoreDeps) {
  let cors = corsHeaders(null);
  try {
    const g = await guarded(req, key, deps);
    cors = g.cors;
    assertActive(g.tenant);
    const visitor = requireVisitor(req, g.tenant, g.e.MICHI_AUTH_SECRET);
    const lang = langOf(new URL(req.url).searchParams.get("lang"), g.tenant.bot.language);
    const ip = clientIp(req.headers, g.e.MICHI_TRUST_PROXY);
    await dbStep(() =>
      takeContactPoint(
        { tenantId: g.tenant.id, visitorId: visitor.visitorId, ip },
        HANDOFF_STRINGS[lang].failed,
      ),
    );
    const body = await readJson(req);
    const bodyLang = langOf(body.lang, lang);
    const { lead, confirmation } = await dbStep(() =>
      submitContact(
        g.db,
        {
          tenant: { id: g.tenant.id, name: g.tenant.name, slug: g.tenant.slug },
          botName: botName(g.tenant),
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

export async function handleFeedback(req: Request, key: string, deps: WidgetStoreDeps) {
  let cors = corsHeaders(null);
  try {
    const g = await guarded(req, key, deps);
    cors = g.cors;
    assertActive(g.tenant);
    const visitor = requireVisitor(req, g.tenant, g.e.MICHI_AUTH_SECRET);
    await dbStep(() => takeFeedbackPoint({ tenantId: g.tenant.id, visitorId: visitor.visitorId }));
    const body = await readJson(req);
    await dbStep(() => rateAnswer(g.db, { tenantId: g.tenant.id, visitorId: visitor.visitorId, body }));
    return new Response(null, { status: 204, headers: { ...cors, "Cache-Control": "no-store" } });
  } catch (err) {
    if (!isAppError(err)) log().error({ err }, "widget feedback request failed");
    return errorResponse(err, cors);
  }
}
