// GET /w/[key] (the panel page) and GET /w/[key]/config (what the loader needs to draw its launcher).
import "server-only";
import { readFileSync } from "node:fs";
import path from "node:path";
import { isAppError } from "@/lib/errors";
import { contactSettings } from "@/lib/leads/settings";
import { log } from "@/lib/log";
import { frameAncestors, originAllowed } from "@/lib/security/origins";
import { parseAcceptLanguage, pickLang, STRINGS } from "../i18n";
import { launcherConfig, panelConfig, widgetLang } from "../public-config";
import { corsHeaders } from "./cors";
import type { WidgetStoreDeps } from "./deps";
import { dbStep, markWidgetSeen, tenantForKey, type WidgetTenant } from "./guard";
import { type PanelAssets, panelCsp, panelHtml, unavailableCsp, unavailableHtml } from "./panel-html";

/** The hashed bundle names written by scripts/build-widget.mjs; read per request, the file is tiny. */
export function readManifest(dir = path.join(process.cwd(), "public", "w")): PanelAssets | null {
  try {
    const m = JSON.parse(readFileSync(path.join(dir, "manifest.json"), "utf8")) as {
      js?: unknown;
      css?: unknown;
    };
    if (typeof m.js !== "string") return null;
    return { js: m.js, css: typeof m.css === "string" ? m.css : undefined };
  } catch {
    return null;
  }
}

const BASE_HEADERS = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "no-store",
};

/** The embedding page (origin and path only), when its origin is one the tenant allows. */
function embeddingPage(raw: string | null, tenant: WidgetTenant, platform: string) {
  if (!raw) return null;
  try {
    const u = new URL(raw);
    if (!originAllowed(u.origin, tenant.siteDomains, platform)) return null;
    return { origin: u.origin, pageUrl: `${u.origin}${u.pathname}`.slice(0, 1000) };
  } catch {
    return null;
  }
}

async function findTenant(key: string, deps: WidgetStoreDeps) {
  const db = await dbStep(() => deps.db());
  return { db, tenant: await tenantForKey(db, key) };
}

export async function handlePanel(req: Request, key: string, deps: WidgetStoreDeps, assets = readManifest()) {
  const url = new URL(req.url);
  const browser = parseAcceptLanguage(req.headers.get("accept-language"));
  const requested = url.searchParams.get("lang");
  let tenant: WidgetTenant | null = null;
  try {
    const e = deps.env();
    const found = await findTenant(key, deps);
    tenant = found.tenant;
    if (tenant.status !== "active" || !assets) throw new Error(assets ? "suspended" : "no widget build");
    const tenantId = tenant.id;
    const contact = await dbStep(() => found.db.forTenant(tenantId, contactSettings));
    const ancestors = frameAncestors(tenant.siteDomains, e.MICHI_PUBLIC_URL);
    const page = embeddingPage(url.searchParams.get("p"), tenant, e.MICHI_PUBLIC_URL);
    const cfg = panelConfig(tenant, {
      lang: widgetLang(tenant, requested, browser),
      parentOrigin: page?.origin ?? null,
      pageUrl: page?.pageUrl ?? "",
      consent: contact.consentText,
    });
    return new Response(panelHtml(cfg, assets), {
      headers: {
        ...BASE_HEADERS,
        "Content-Type": "text/html; charset=utf-8",
        "Content-Security-Policy": panelCsp(ancestors, cfg.avatarUrl),
      },
    });
  } catch (err) {
    if (!isAppError(err) && tenant?.status === "active") log().error({ err }, "widget panel failed");
    const lang = pickLang(requested, tenant?.bot.language, browser);
    const ancestors = tenant ? frameAncestors(tenant.siteDomains, deps.env().MICHI_PUBLIC_URL) : [];
    const missing = (isAppError(err) && err.code === "not_found") || (tenant && tenant.status !== "active");
    return new Response(unavailableHtml(STRINGS[lang].unavailable, lang), {
      status: missing ? 404 : 503,
      headers: {
        ...BASE_HEADERS,
        "Content-Type": "text/html; charset=utf-8",
        "Content-Security-Policy": unavailableCsp(ancestors),
      },
    });
  }
}

/**
 * The launcher's colour, side and words. Public, so it may be cached briefly; a site the tenant does not
 * allow gets a refusal, and the loader then draws nothing. This is the one request that carries the host
 * page's own Origin (the panel's requests come from the platform origin), so it records "widget seen".
 */
export async function handleLauncherConfig(req: Request, key: string, deps: WidgetStoreDeps) {
  const origin = req.headers.get("origin");
  try {
    const e = deps.env();
    const { db, tenant } = await findTenant(key, deps);
    if (origin !== null && !originAllowed(origin, tenant.siteDomains, e.MICHI_PUBLIC_URL)) {
      return Response.json(
        { error: { code: "origin_not_allowed", message: "This chat cannot be used from this website." } },
        { status: 403, headers: { ...corsHeaders(null), "Cache-Control": "no-store" } },
      );
    }
    if (tenant.status !== "active") {
      return Response.json(
        { error: { code: "not_found", message: "This chat is not available." } },
        { status: 404, headers: { ...corsHeaders(origin), "Cache-Control": "no-store" } },
      );
    }
    if (origin && origin !== new URL(e.MICHI_PUBLIC_URL).origin) {
      await markWidgetSeen(db, tenant.id).catch((err) =>
        log().warn({ err, tenantId: tenant.id }, "could not record widget_seen_at"),
      );
    }
    const lang = pickLang(
      new URL(req.url).searchParams.get("lang"),
      tenant.bot.language,
      parseAcceptLanguage(req.headers.get("accept-language")),
    );
    return Response.json(launcherConfig(tenant, lang), {
      headers: {
        ...corsHeaders(origin),
        Vary: "Origin, Accept-Language",
        "Cache-Control": "public, max-age=300",
        "X-Content-Type-Options": "nosniff",
      },
    });
  } catch (err) {
    const status = isAppError(err) ? err.status : 500;
    return Response.json(
      { error: { code: isAppError(err) ? err.code : "internal", message: "This chat is not available." } },
      { status, headers: { ...corsHeaders(null), "Cache-Control": "no-store" } },
    );
  }
}
