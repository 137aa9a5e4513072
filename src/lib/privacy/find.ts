import "server-only";
import { assertRole, type TenantContext } from "../auth/access";
import { countVisitorRows } from "../db/queries/visitor-data";
import { foundNothing, keysFor, type VisitorQuery } from "./identify";

// The Visitor data page's search: how much is stored about the visitor the handle names, per kind, before the
// owner exports or erases it. Counts only: the data itself leaves only through the audited export.

export type VisitorSummary = { found: boolean; counts: Record<string, number> };

export async function findVisitor(ctx: TenantContext, q: VisitorQuery): Promise<VisitorSummary> {
  assertRole(ctx, "admin");
  return ctx.db.forTenant(ctx.tenant.id, async (tx) => {
    const keys = await keysFor(tx, ctx.tenant.id, q);
    if (foundNothing(keys)) return { found: false, counts: {} };
    return { found: true, counts: await countVisitorRows(tx, ctx.tenant.id, keys) };
  });
}
