// GET /w/[key] (the panel page) and GET /w/[key]/config (what the loader needs to draw its launcher).
import "server-only";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { noteRefusedOrigin } from "@/lib/db/queries/refused-origins";
import { isAppError } from "@/lib/errors";
import { contactSettings } from "@/lib/leads/settings";
import { log } from "@/lib/log";
import { frameAncestors, originAllowed } from "@/lib/security/origins";
import { parseAcceptLanguage, pickLang } from "@/shared/pick-lang";
import { STRINGS } from "../i18n";
import { launcherConfig, panelConfig, widgetLang } from "../public-config";
import { corsHeaders } from "./cors";
import type { WidgetStoreDeps } from "./deps";
import { dbStep, markWidgetSeen, tenantForKey, type WidgetTenant } from "./guard";
import {
  isPlainOrigin,
  launcherFrame,
  launcherFrameCsp,
  launcherRefusedFrame,
  type PanelAssets,
  panelCsp,
  panelHtml,
  unavailableCsp,
  unavailableHtml,
} from "./panel-html";

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

/** A weak validator for a body: the same words for the same launcher give the same tag. */
function etagOf(body: string): string {
  return `W/"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`;
}

/**
 * Short enough that a colour change reaches the launcher, and a suspended or deleted business loses it,
 * within a minute (30 s fresh plus at most 30 s served stale while the browser revalidates); the ETag makes
 * each revalidation a 304 without a body.
 */
export const LAUNCHER_CACHE = "public, max-age=30, stale-while-revalidate=30";

/**
 * The launcher's colour, side and words. Public, so it may be cached briefly; a site the tenant does not
 * allow gets a refusal, and the loader then draws nothing. This request carries the host page's origin (the
 * panel's requests come from the platform origin), so it records "widget seen".
 *
 * Two forms: JSON for a request with an Origin header (a cross-origin fetch), and, with `?o=ORIGIN`, a tiny
 * page the loader frames (hidden), which posts the settings to that origin. The frame form needs nothing of
 * the host page's fetch, Promise or JSON, nor a connect-src grant in its CSP (see src/widget/loader.ts); a
 * page that lies about its origin gets nothing, since the message is addressed to the origin named and the
 * frame-ancestors list stops any other site from framing it.
 */
export async function handleLauncherConfig(req: Request, key: string, deps: WidgetStoreDeps) {
  const url = new URL(req.url);
  const framed = url.searchParams.has("o");
  const origin = framed ? url.searchParams.get("o") : req.headers.get("origin");
  let ancestors: string[] = [];
  const refuse = (code: string, status: number) =>
    framed
      ? new Response(unavailableHtml("", "en"), {
          status,
          headers: {
            ...BASE_HEADERS,
            "Content-Type": "text/html; charset=utf-8",
            "Content-Security-Policy": unavailableCsp(ancestors),
          },
        })
      : Response.json(
          { error: { code, message: "This chat is not available." } },
          { status, headers: { ...corsHeaders(null), "Cache-Control": "no-store" } },
        );
  try {
    const e = deps.env();
    const { db, tenant } = await findTenant(key, deps);
    ancestors = frameAncestors(tenant.siteDomains, e.MICHI_PUBLIC_URL);
    if (framed && !origin) return refuse("bad_request", 400);
    if (origin !== null && !originAllowed(origin, tenant.siteDomains, e.MICHI_PUBLIC_URL)) {
      if (!framed || !isPlainOrigin(origin) || tenant.status !== "active")
        return refuse("origin_not_allowed", 403);
      await db
        .forTenant(tenant.id, (tx) => noteRefusedOrigin(tx, tenant.id, origin))
        .catch((err) => log().warn({ err, tenantId: tenant.id }, "could not record a refused origin"));
      const told = launcherRefusedFrame(key, origin);
      return new Response(told.html, {
        status: 403,
        headers: {
          ...BASE_HEADERS,
          "Content-Type": "text/html; charset=utf-8",
          "Content-Security-Policy": told.csp,
          "Cache-Control": "no-store",
        },
      });
    }
    if (tenant.status !== "active") return refuse("not_found", 404);
    if (origin && origin !== new URL(e.MICHI_PUBLIC_URL).origin) {
      await markWidgetSeen(db, tenant.id).catch((err) =>
        log().warn({ err, tenantId: tenant.id }, "could not record widget_seen_at"),
      );
    }
    const lang = pickLang(
      url.searchParams.get("lang"),
      tenant.bot.language,
      parseAcceptLanguage(req.headers.get("accept-language")),
    );
    const cfg = launcherConfig(tenant, lang);
    const frame = framed && origin ? launcherFrame(key, cfg, origin) : null;
    const body = frame ? frame.html : JSON.stringify(cfg);
    const etag = etagOf(body);
    const headers: Record<string, string> = {
      ...(frame
        ? {
            ...BASE_HEADERS,
            "Content-Type": "text/html; charset=utf-8",
            "Content-Security-Policy": launcherFrameCsp(ancestors, frame.scriptHash),
          }
        : {
            ...corsHeaders(origin),
            "Content-Type": "application/json",
            "X-Content-Type-Options": "nosniff",
          }),
      Vary: "Origin, Accept-Language",
      "Cache-Control": LAUNCHER_CACHE,
      ETag: etag,
    };
    const seen = req.headers.get("if-none-match");
    if (seen && seen.split(/\s*,\s*/).includes(etag)) return new Response(null, { status: 304, headers });
    return new Response(body, { headers });
  } catch (err) {
    if (!isAppError(err)) log().error({ err }, "widget launcher config failed");
    return refuse(isAppError(err) ? err.code : "internal", isAppError(err) ? err.status : 500);
  }
}
