import { tenantRoute } from "@/lib/auth/guard";
import { AppError } from "@/lib/errors";
import { exportVisitorData, visitorExportSchema } from "@/lib/privacy/export";

// GET /api/admin/[tenant]/privacy/export?by=email|phone|verified|conversation&value=…&format=json|html
// One visitor's data, for admins and owners only (viewers never take personal data out); non-members get 404
// from the guard, and each export leaves an audit entry without the handle.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = tenantRoute("admin", async (req, ctx) => {
  const q = Object.fromEntries(new URL(req.url).searchParams);
  const parsed = visitorExportSchema.safeParse(q);
  if (!parsed.success) throw new AppError("invalid_input", "Say how to find the visitor (by and value).");
  return exportVisitorData(ctx, parsed.data);
});
