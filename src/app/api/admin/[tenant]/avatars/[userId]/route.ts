import { photoResponse, readMemberPhoto } from "@/lib/accounts/photo";
import { tenantRoute } from "@/lib/auth/guard";
import type { RouteContext } from "@/lib/auth/route";
import { AppError } from "@/lib/errors";

// GET /api/admin/[tenant]/avatars/[userId]?v=<version>: a member's profile photo for the admin (the account
// page, the live console's queue). Every member may see their teammates' photos; a person who is not a member
// of this business, or an old version, is not found (the photos' row-level policy decides, not this code).
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const guarded = tenantRoute("viewer", async (req, ctx) => {
  const version = new URL(req.url).searchParams.get("v") ?? "";
  const file = await readMemberPhoto(ctx.db, ctx.tenant.id, { userId: ctx.params.userId ?? "", version });
  if (!file) throw new AppError("not_found", "This photo is not available.");
  return photoResponse(file);
});

export async function GET(req: Request, context: RouteContext): Promise<Response> {
  const res = await guarded(req, context);
  // The guard marks every admin answer no-store; a photo (its URL names its version) may be kept a while.
  if (res.ok) res.headers.set("Cache-Control", "private, max-age=3600");
  return res;
}
