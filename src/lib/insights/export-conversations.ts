import "server-only";
import { assertRole, auditedTx, type TenantContext } from "../auth/access";
import { exportBatches } from "../db/queries/insights-export";
import { exportFilename, parseExportQuery } from "./export-request";
import { exportStream } from "./export-stream";

/**
 * The conversation export: every visitor message of the range as CSV or JSON, streamed. For admins and
 * owners: an export copies visitors' messages out of the platform in bulk, a data-protection decision
 * (viewers read transcripts one by one). Each export leaves an audit entry: who, which range, which format.
 */
export async function exportConversations(ctx: TenantContext, url: URL): Promise<Response> {
  assertRole(ctx, "admin");
  const query = parseExportQuery(url);
  await auditedTx(ctx, (_tx, record) =>
    record("conversations.exported", { details: { format: query.format, from: query.from, to: query.to } }),
  );
  const body = exportStream(exportBatches(ctx.db, ctx.tenant.id, query.range), query.format);
  return new Response(body, {
    headers: {
      "Content-Type": query.format === "csv" ? "text/csv; charset=utf-8" : "application/json; charset=utf-8",
      "Content-Disposition": `attachment; filename="${exportFilename(ctx.tenant.slug, query)}"`,
      "X-Content-Type-Options": "nosniff",
    },
  });
}
