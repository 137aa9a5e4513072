import "server-only";
import { z } from "zod";
import { dbUnavailable } from "@/lib/chat/persist";
import type { DbHandle } from "@/lib/db";
import { findTenantByWidgetKey, touchWidgetSeen } from "@/lib/db/queries/tenants";
import type { tenants, VerifiedVisitor } from "@/lib/db/schema";
import { AppError, isAppError } from "@/lib/errors";
import { noteTenant } from "@/lib/request-context";
import { readCappedText } from "@/lib/security/body";
import { isErasedVisitor } from "@/lib/security/erased-visitors";
import { originAllowed } from "@/lib/security/origins";
import { verifiedVisitorId, verifyIdentityToken } from "@/lib/security/visitor-identity";
import { bearerToken, type VisitorClaims, verifyVisitorToken } from "@/lib/security/visitor-token";
import { CHAT_MESSAGE_MAX } from "@/shared/message";

// The widget's guard: public key → tenant, Origin → allowed or not, bearer token → visitor. The tenant id a
// handler uses comes from here only, never from the request body.

export type WidgetTenant = typeof tenants.$inferSelect;

const KEY_RE = /^[A-Za-z0-9_-]{4,80}$/;

/** Runs a database step of the guard; a fault of the database becomes a clear 503, not a 500. */
export async function dbStep<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isAppError(err)) throw err;
    throw Object.assign(dbUnavailable(), { cause: err });
  }
}

export async function tenantForKey(db: DbHandle, key: string): Promise<WidgetTenant> {
  return (await readTenantForKey(db, key)).tenant;
}

/** The tenant of a widget key as just read, with the version of its row (`seen`, see known-tenants.ts). */
export async function readTenantForKey(
  db: DbHandle,
  key: string,
): Promise<{ tenant: WidgetTenant; seen: string }> {
  const notFound = new AppError("not_found", "This chat is not available.");
  if (!KEY_RE.test(key)) throw notFound;
  const found = await dbStep(() => findTenantByWidgetKey(db.platform, key, { named: db.kind === "pg" }));
  if (!found) throw notFound;
  noteTenant(found.tenant.id);
  return found;
}

export function assertActive(tenant: WidgetTenant): void {
  if (tenant.status !== "active") {
    throw new AppError("tenant_suspended", "This chat is currently unavailable.");
  }
}

/** The request's Origin when the tenant allows it; anything else, including no Origin at all, is refused. */
export function allowedOrigin(req: Request, tenant: WidgetTenant, platformOrigin: string): string {
  const origin = req.headers.get("origin");
  if (!origin || !originAllowed(origin, tenant.siteDomains, platformOrigin)) {
    throw new AppError("origin_not_allowed", "This chat cannot be used from this website.");
  }
  return origin;
}

/** The visitor of a widget request; `verified` when the host page vouched for them (see identity below). */
export type WidgetVisitor = VisitorClaims & { verified?: VerifiedVisitor };

export async function requireVisitor(
  req: Request,
  tenant: WidgetTenant,
  authSecret: string,
): Promise<WidgetVisitor> {
  const token = bearerToken(req.headers);
  const result = token ? verifyVisitorToken(authSecret, token, tenant.id) : null;
  if (!result?.ok) {
    throw new AppError("unauthorized", "Your chat session has expired. Please reload the chat.", {
      reason: result?.reason ?? "missing",
    });
  }
  // Erased on request: the panel asks for a new session, which gives a new visitor id (handleSession).
  if (isErasedVisitor(tenant.erasedVisitors, tenant.id, result.claims.visitorId)) {
    throw new AppError("unauthorized", "Your chat session has expired. Please reload the chat.", {
      reason: "erased",
    });
  }
  const verified = await verifiedVisitor(req, tenant);
  if (!verified) return result.claims;
  // The conversations of a verified visitor are theirs on every device: they are kept under an id made from
  // the business and the token's sub, which no platform-issued token can carry.
  return { ...result.claims, visitorId: verifiedVisitorId(tenant.id, verified.id), verified };
}

/** The header the panel sends the host page's token in, on every request while the page has given one. */
export const IDENTITY_HEADER = "x-michi-identity";

/**
 * The visitor the host page's token names, checked now against the business's current secret; undefined
 * when the request carries none. A token that fails is refused in words (the panel words the code), never
 * taken as an anonymous visitor: the page asked for this person, and a tool may depend on who they are.
 */
export async function verifiedVisitor(
  req: Request,
  tenant: WidgetTenant,
): Promise<VerifiedVisitor | undefined> {
  const token = req.headers.get(IDENTITY_HEADER)?.trim();
  if (!token) return undefined;
  const r = await verifyIdentityToken(token, tenant.visitorIdentitySecret, tenant.id);
  if (r.ok) return r.visitor;
  if (r.reason === "expired")
    throw new AppError("identity_expired", "Your sign-in for this chat has expired. Please reload the page.");
  throw new AppError("identity_invalid", "This chat could not confirm who you are. Please reload the page.", {
    reason: r.reason,
  });
}

/** Platform path: records that the widget was loaded from the tenant's own site, at most once an hour. */
export async function markWidgetSeen(db: DbHandle, tenantId: string): Promise<void> {
  await touchWidgetSeen(db.platform, tenantId);
}

const BODY_MAX_BYTES = 16 * 1024;

const chatBodySchema = z.object({
  conversationId: z.uuid().optional(),
  message: z.string().optional(),
  /** Retry: the id of the visitor's stored message to answer again (its text is taken from the store). */
  retryOf: z.uuid().optional(),
  lang: z.string().max(35).optional(),
  pageUrl: z.string().max(4096).optional(),
});

export type ChatBody = {
  conversationId?: string;
  /** Empty on a retry: the stored message is answered again. */
  message: string;
  retryOf?: string;
  lang?: string;
  pageUrl: string;
};

/** Keeps only the page's origin and path: query strings often carry personal data. */
export function cleanPageUrl(raw: string | undefined): string {
  if (!raw) return "";
  try {
    const u = new URL(raw);
    if (u.protocol !== "https:" && u.protocol !== "http:") return "";
    return `${u.origin}${u.pathname}`.slice(0, 1000);
  } catch {
    return "";
  }
}

export async function parseChatBody(req: Request): Promise<ChatBody> {
  const bad = (message: string, field = "body") =>
    new AppError("invalid_input", message, { fieldErrors: { [field]: [message] } });
  const raw = await readCappedText(req, BODY_MAX_BYTES);
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw bad("The request is not valid JSON.");
  }
  const parsed = chatBodySchema.safeParse(json);
  if (!parsed.success) throw bad("The request is not valid.");
  if (parsed.data.retryOf) {
    if (!parsed.data.conversationId) throw bad("A retry needs its conversation.", "conversationId");
    return {
      conversationId: parsed.data.conversationId,
      message: "",
      retryOf: parsed.data.retryOf,
      lang: parsed.data.lang,
      pageUrl: cleanPageUrl(parsed.data.pageUrl),
    };
  }
  // Postgres text cannot hold NUL; other control characters are harmless and kept.
  const message = (parsed.data.message ?? "").replaceAll("\u0000", "").trim();
  if (!message) throw bad("Please type a message.", "message");
  if (message.length > CHAT_MESSAGE_MAX) {
    throw bad(`Messages can be at most ${CHAT_MESSAGE_MAX.toLocaleString("en")} characters.`, "message");
  }
  return {
    conversationId: parsed.data.conversationId,
    message,
    lang: parsed.data.lang,
    pageUrl: cleanPageUrl(parsed.data.pageUrl),
  };
}

/**
 * The site a conversation came from, for the admin's transcript. The panel is an iframe on the platform's own
 * origin, so the request's Origin names the platform; the host page it reports is the useful answer. It is only
 * displayed, never used to allow anything (framing and CORS decide that).
 */
export function siteOrigin(pageUrl: string, requestOrigin: string): string {
  try {
    const u = new URL(pageUrl);
    if (u.protocol === "https:" || u.protocol === "http:") return u.origin;
  } catch {
    // not a URL: fall back to the request's origin
  }
  return requestOrigin;
}
