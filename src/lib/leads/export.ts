import "server-only";
import { assertRole, auditedTx, type TenantContext } from "../auth/access";
import { leadsInRange } from "../db/queries/leads";
import { parseExportQuery } from "../insights/export-request";
import { csvLine } from "../insights/export-stream";

// The Inbox export: every request of the chosen days (the last 30 by default), as CSV or JSON, with the same
// query string and CSV guards as the conversation export. Requests are few, so one read is enough.

const COLUMNS = [
  "id",
  "created_at",
  "kind",
  "source",
  "status",
  "name",
  "email",
  "phone",
  "message",
  "locale",
  "consent_text",
  "conversation_id",
  "handled_by",
  "handled_at",
] as const;

/** For admins and owners: the requests hold visitors' contact details, and every export is audited. */
export async function exportLeads(ctx: TenantContext, url: URL): Promise<Response> {
  assertRole(ctx, "admin");
  const query = parseExportQuery(url);
  const rows = await auditedTx(ctx, async (tx, record) => {
    const found = await leadsInRange(tx, ctx.tenant.id, query.range);
    await record("leads.exported", {
      details: { format: query.format, from: query.from, to: query.to, count: found.length },
    });
    return found;
  });
  const records = rows.map((l) => ({
    id: l.id,
    created_at: l.createdAt.toISOString(),
    kind: l.kind,
    source: l.source,
    status: l.status,
    name: l.name,
    email: l.email,
    phone: l.phone,
    message: l.message,
    locale: l.locale,
    consent_text: l.consentText,
    conversation_id: l.conversationId ?? "",
    handled_by: l.handledByLabel,
    handled_at: l.handledAt?.toISOString() ?? "",
  }));
  const body =
    query.format === "csv"
      ? csvLine([...COLUMNS]) + records.map((r) => csvLine(COLUMNS.map((c) => r[c]))).join("")
      : JSON.stringify({ from: query.from, to: query.to, requests: records });
  return new Response(body, {
    headers: {
      "Content-Type": query.format === "csv" ? "text/csv; charset=utf-8" : "application/json; charset=utf-8",
      "Content-Disposition": `attachment; filename="michi-${ctx.tenant.slug}-inbox-${query.from}-to-${query.to}.${query.format}"`,
      "X-Content-Type-Options": "nosniff",
    },
  });
}
