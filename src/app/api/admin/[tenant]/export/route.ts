import { tenantRoute } from "@/lib/auth/guard";
import { audit } from "@/lib/db/queries/audit";
import { exportBatches } from "@/lib/db/queries/insights-export";
import { exportFilename, parseExportQuery } from "@/lib/insights/export-request";
import { exportStream } from "@/lib/insights/export-stream";

// GET /api/admin/[tenant]/export?format=csv|json&from=YYYY-MM-DD&to=YYYY-MM-DD
// Admins and owners only: an export copies every visitor message of the range out of the platform, which is
// a data-protection decision; viewers can read transcripts one by one in the admin but not take them in bulk.
// Non-members get 404 from the guard. Each export leaves an audit entry (who, which range, which format).
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = tenantRoute("admin", async (req, ctx) => {
  const query = parseExportQuery(new URL(req.url));
  await ctx.db.forTenant(ctx.tenant.id, (tx) =>
    audit(tx, {
      tenantId: ctx.tenant.id,
      actor: ctx.user,
      action: "conversations.exported",
      details: { format: query.format, from: query.from, to: query.to },
    }),
  );
  const body = exportStream(exportBatches(ctx.db, ctx.tenant.id, query.range), query.format);
  return new Response(body, {
    headers: {
      "Content-Type": query.format === "csv" ? "text/csv; charset=utf-8" : "application/json; charset=utf-8",
      "Content-Disposition": `attachment; filename="${exportFilename(ctx.tenant.slug, query)}"`,
      "X-Content-Type-Options": "nosniff",
    },
  });
});
