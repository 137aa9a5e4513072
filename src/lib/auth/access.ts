import "server-only";
import { SLUG_RE } from "@/shared/slug";
import { getDb } from "../db";
import type { DbHandle, TenantTx } from "../db/client";
import { forTenantAudited, type RecordAudit } from "../db/queries/audit";
import { findTenantBySlug } from "../db/queries/tenants";
import { findMembership, findUserById } from "../db/queries/users";
import type { Role, tenants } from "../db/schema";
import { AppError } from "../errors";
import { noteTenant } from "../request-context";
import { readSessionClaims, type SessionClaims } from "./claims";

// Who is calling and what they may do in a tenant. Pure resolution: the page, action and route guards turn
// the outcome into a redirect, a 404, a refusal or a JSON error each in their own way.

export type { Role } from "../db/schema";

const ROLE_RANK: Record<Role, number> = { viewer: 0, admin: 1, owner: 2 };

export function roleAtLeast(role: Role, min: Role): boolean {
  return ROLE_RANK[role] >= ROLE_RANK[min];
}

export type SessionUser = {
  id: string;
  email: string;
  name: string;
  isOperator: boolean;
  mustChangePassword: boolean;
};

export type TenantContext = {
  user: SessionUser;
  tenant: typeof tenants.$inferSelect;
  role: Role;
  db: DbHandle;
};

/** The platform operator acting on the operator pages: no tenant of their own. */
export type OperatorContext = { user: SessionUser; db: DbHandle };

export type TenantAccess =
  | { kind: "anonymous" }
  | { kind: "not_found" }
  | { kind: "forbidden"; ctx: TenantContext; minRole: Role }
  | { kind: "ok"; ctx: TenantContext };

/**
 * The signed-in user, or null. A token whose session version no longer matches the user's row (password
 * changed, "sign out everywhere") counts as signed out, as does a token for a deleted user.
 */
export async function currentUser(db: DbHandle): Promise<SessionUser | null> {
  return userForClaims(db, await readSessionClaims());
}

/**
 * The signed-in user and the database. The cookie is read before anything else, which also tells Next the
 * page depends on the request, so it is never rendered (nor env() read) at build time.
 */
export async function sessionUser(): Promise<{ user: SessionUser | null; db: DbHandle }> {
  const claims = await readSessionClaims();
  const db = await getDb();
  return { user: await userForClaims(db, claims), db };
}

async function userForClaims(db: DbHandle, claims: SessionClaims | null): Promise<SessionUser | null> {
  if (!claims) return null;
  const row = await findUserById(db.platform, claims.uid);
  if (!row || row.sessionVersion !== claims.sv) return null;
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    isOperator: row.isOperator,
    mustChangePassword: row.mustChangePassword,
  };
}

/**
 * Resolves the session, the tenant named by `slug` and the membership. An unknown slug and a tenant the user
 * is not a member of give the same answer, so slugs cannot be probed. Operators get no implicit membership:
 * they manage tenants from the operator pages, and see a tenant's admin only if they are a member of it.
 */
export async function resolveTenantAccess(slug: string, minRole: Role): Promise<TenantAccess> {
  const { user, db } = await sessionUser();
  if (!user) return { kind: "anonymous" };
  if (typeof slug !== "string" || !SLUG_RE.test(slug)) return { kind: "not_found" };
  const tenant = await findTenantBySlug(db.platform, slug);
  if (!tenant) return { kind: "not_found" };
  const membership = await findMembership(db.platform, tenant.id, user.id);
  if (!membership) return { kind: "not_found" };
  noteTenant(tenant.id);
  const ctx: TenantContext = { user, tenant, role: membership.role, db };
  if (!roleAtLeast(membership.role, minRole)) return { kind: "forbidden", ctx, minRole };
  return { kind: "ok", ctx };
}

export function roleRefusal(role: Role, minRole: Role): string {
  const need = minRole === "owner" ? "an owner" : minRole === "admin" ? "an admin or owner" : "a member";
  return `Only ${need} of this business can do that. Your role is ${role}.`;
}

export const NOT_A_MEMBER = "This business does not exist, or you are not a member of it.";

/**
 * The first line of every use case that changes a tenant: the caller's role must be at least `min`. The
 * guards check it too, but a script, a test or a new route calls the use case directly, so the rule lives here.
 */
export function assertRole(ctx: Pick<TenantContext, "role">, min: Role): void {
  if (!roleAtLeast(ctx.role, min)) throw new AppError("forbidden", roleRefusal(ctx.role, min));
}

/** The operator's counterpart of assertRole: only the platform operator may run the operator's use cases. */
export function assertOperator(ctx: OperatorContext): void {
  if (!ctx.user.isOperator) throw new AppError("forbidden", OPERATOR_ONLY);
}

export const OPERATOR_ONLY = "Only the platform operator can do that.";

/** The caller's tenant transaction, with `record` writing audit entries as the caller (forTenantAudited). */
export function auditedTx<T>(
  ctx: Pick<TenantContext, "db" | "tenant" | "user">,
  fn: (tx: TenantTx, record: RecordAudit) => Promise<T>,
): Promise<T> {
  return forTenantAudited(ctx.db, ctx.tenant.id, ctx.user, fn);
}
