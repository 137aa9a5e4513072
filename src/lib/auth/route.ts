import "server-only";
import { unstable_rethrow } from "next/navigation";
import { env } from "../env";
import { AppError, errorResponse, isAppError } from "../errors";
import { log } from "../log";
import { type Role, resolveTenantAccess, roleRefusal, type TenantContext } from "./access";

// The guard for route handlers under /api/admin/[tenant]/…: same resolution as pages and actions, answered
// in JSON. Browsers send cookies with cross-site requests, so a state-changing request must also prove it
// came from our own pages: a JSON content type (not sendable by a plain HTML form) and our own Origin.

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export type RouteParams = Record<string, string | string[] | undefined>;
export type RouteContext = { params: Promise<RouteParams> };
export type TenantRouteContext = TenantContext & { params: Record<string, string> };

function flatten(params: RouteParams | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(params ?? {})) {
    if (typeof v === "string") out[k] = v;
    else if (Array.isArray(v)) out[k] = v.join("/");
  }
  return out;
}

function assertSameOrigin(req: Request): void {
  if (SAFE_METHODS.has(req.method.toUpperCase())) return;
  const origin = req.headers.get("origin");
  if (!origin || origin !== new URL(env().MICHI_PUBLIC_URL).origin)
    throw new AppError("origin_not_allowed", "This request must come from the admin pages of this site.");
}

// A plain HTML form can send neither of these types, so a cross-site page cannot forge such a request.
const BODY_TYPES = {
  json: {
    re: /^application\/json\s*(;|$)/i,
    message: "Send the request body as JSON (Content-Type: application/json).",
  },
  bytes: {
    re: /^application\/octet-stream\s*(;|$)/i,
    message: "Send the file itself as the body (Content-Type: application/octet-stream).",
  },
};
type BodyKind = keyof typeof BODY_TYPES;

function assertBodyType(req: Request, kind: BodyKind): void {
  if (SAFE_METHODS.has(req.method.toUpperCase())) return;
  if (!BODY_TYPES[kind].re.test(req.headers.get("content-type") ?? ""))
    throw new AppError("unsupported_media_type", BODY_TYPES[kind].message);
}

/**
 * `body: "bytes"` is for uploads: the raw file as the body. Its type is checked after the caller is known, so
 * a non-member learns nothing but "not found" and nothing of the body is read before session, role and tenant
 * are settled (the handler reads it, capped).
 */
export function tenantRoute(
  minRole: Role,
  handler: (req: Request, ctx: TenantRouteContext) => Promise<Response>,
  opts: { body?: BodyKind } = {},
): (req: Request, context: RouteContext) => Promise<Response> {
  const body = opts.body ?? "json";
  return async (req, context) => {
    try {
      assertSameOrigin(req);
      if (body === "json") assertBodyType(req, "json");
      const params = flatten(await context.params);
      const access = await resolveTenantAccess(params.tenant ?? "", minRole);
      if (access.kind === "anonymous") throw new AppError("unauthorized", "Sign in first.");
      if (access.kind === "not_found") throw new AppError("not_found", "Not found.");
      if (access.kind === "forbidden")
        throw new AppError("forbidden", roleRefusal(access.ctx.role, access.minRole));
      if (body !== "json") assertBodyType(req, body);
      const res = await handler(req, { ...access.ctx, params });
      res.headers.set("Cache-Control", "no-store");
      return res;
    } catch (e) {
      unstable_rethrow(e);
      if (!isAppError(e)) log().error({ err: e, method: req.method }, "admin route failed");
      return errorResponse(e, { "Cache-Control": "no-store" });
    }
  };
}
