import { tenantRoute } from "@/lib/auth/guard";
import { exportLeads } from "@/lib/leads/export";

// GET /api/admin/[tenant]/inbox/export?format=csv|json&from=YYYY-MM-DD&to=YYYY-MM-DD
// Admins and owners only, like the conversation export: it takes visitors' contact details out of the
// platform. Non-members get 404 from the guard; each export leaves an audit entry.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = tenantRoute("admin", async (req, ctx) => exportLeads(ctx, new URL(req.url)));
