import "server-only";
import { notFound } from "next/navigation";
import type { DbHandle } from "../db/client";
import { AppError } from "../errors";
import {
  type Role,
  resolveTenantAccess,
  roleRefusal,
  type SessionUser,
  sessionUser,
  type TenantContext,
} from "./access";
import { redirectToSignIn } from "./redirect";

// The one door into tenant data for pages, server actions and route handlers. Pages call it themselves:
// a Next layout does not protect the pages under it.
//
// - signed out (or an old session version)  → redirect to /signin
// - unknown slug or not a member            → 404 (never 403, so slugs cannot be probed)
// - member whose role is too low            → AppError("forbidden"); actions turn it into a plain message
// - operators are not implicitly members of every tenant; they use /admin/operator

export type { Role, SessionUser, TenantContext } from "./access";
export { roleAtLeast } from "./access";
export { operatorAction, parseForm, tenantAction } from "./action";
export { tenantRoute } from "./route";

/** For pages: the caller's context in tenant `slug`, or redirect / 404 / forbidden as described above. */
export async function requireTenant(slug: string, minRole: Role = "viewer"): Promise<TenantContext> {
  const access = await resolveTenantAccess(slug, minRole);
  if (access.kind === "anonymous") redirectToSignIn(`/admin/${encodeURIComponent(String(slug))}`);
  if (access.kind === "not_found") notFound();
  if (access.kind === "forbidden") throw new AppError("forbidden", roleRefusal(access.ctx.role, minRole));
  return access.ctx;
}

/** For operator pages: the signed-in operator, or redirect / 404 for everyone else. */
export async function requireOperator(): Promise<{ user: SessionUser; db: DbHandle }> {
  const { user, db } = await sessionUser();
  if (!user) redirectToSignIn("/admin/operator");
  if (!user.isOperator) notFound();
  return { user, db };
}

/** For pages that only need a signed-in user (no tenant), e.g. /admin. */
export async function requireUser(callbackPath = "/admin"): Promise<{ user: SessionUser; db: DbHandle }> {
  const { user, db } = await sessionUser();
  if (!user) redirectToSignIn(callbackPath);
  return { user, db };
}
