import { tenantRoute } from "@/lib/auth/guard";
import { exportConversations } from "@/lib/insights/export-conversations";

// GET /api/admin/[tenant]/export?format=csv|json&from=YYYY-MM-DD&to=YYYY-MM-DD
// Admins and owners only (see exportConversations); non-members get 404 from the guard.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = tenantRoute("admin", async (req, ctx) => exportConversations(ctx, new URL(req.url)));
