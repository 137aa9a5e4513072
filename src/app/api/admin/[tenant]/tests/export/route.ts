import { tenantRoute } from "@/lib/auth/guard";
import { exportTestQuestions } from "@/lib/test-questions/manage";

// GET /api/admin/[tenant]/tests/export: the test questions as CSV. Viewers may take it (it only reads);
// non-members get 404 from the guard.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = tenantRoute("viewer", async (_req, ctx) => {
  const csv = await exportTestQuestions(ctx);
  return new Response(csv, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="test-questions-${ctx.tenant.slug}.csv"`,
      "cache-control": "no-store",
    },
  });
});
