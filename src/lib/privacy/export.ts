import "server-only";
import { z } from "zod";
import { type Citation, citationsFrom } from "@/shared/citations";
import { assertRole, auditedTx, type TenantContext } from "../auth/access";
import { readVisitorRows, type VisitorRows } from "../db/queries/visitor-data";
import { AppError } from "../errors";
import { renderVisitorHtml } from "./export-html";
import { foundNothing, keysFor, type VisitorQuery, visitorQuerySchema } from "./identify";
import type { VisitorExport } from "./types";

// A copy of everything the business holds about one visitor (GDPR art. 15): every row of every table that
// references them (src/lib/db/queries/visitor-data.ts lists them), as one JSON file or one readable HTML page.
// For admins and owners only, like the other exports that take visitors' details out of the platform; each
// export is audited with what was found, never with the handle or the data.

export const visitorExportSchema = visitorQuerySchema.extend({
  format: z.enum(["json", "html"]).default("json"),
});

function citationsOf(tables: VisitorRows): Record<string, Citation[]> {
  const runsBy = new Map<string, { packId: string; result: string }[]>();
  for (const r of tables.tool_runs ?? []) {
    const id = String(r.message_id ?? "");
    if (!id) continue;
    const list = runsBy.get(id) ?? [];
    list.push({ packId: String(r.pack_id), result: String(r.result ?? "") });
    runsBy.set(id, list);
  }
  const out: Record<string, Citation[]> = {};
  for (const m of tables.messages ?? []) {
    const runs = runsBy.get(String(m.id));
    const cited = runs ? citationsFrom(String(m.content ?? ""), runs) : [];
    if (cited.length) out[String(m.id)] = cited;
  }
  return out;
}

/** The visitor's data, read in one tenant transaction with its audit entry. */
export async function collectVisitorData(ctx: TenantContext, q: VisitorQuery): Promise<VisitorExport> {
  assertRole(ctx, "admin");
  return auditedTx(ctx, async (tx, record) => {
    const keys = await keysFor(tx, ctx.tenant.id, q);
    if (foundNothing(keys)) throw new AppError("not_found", "Nothing is stored about this visitor.");
    const tables = await readVisitorRows(tx, ctx.tenant.id, keys);
    const counts = Object.fromEntries(Object.entries(tables).map(([t, rows]) => [t, rows.length]));
    await record("visitor.exported", { details: { by: q.by, counts } });
    return {
      business: { name: ctx.tenant.name, slug: ctx.tenant.slug },
      exportedAt: new Date().toISOString(),
      foundBy: q.by,
      counts,
      citations: citationsOf(tables),
      tables,
    };
  });
}

/** GET /api/admin/[tenant]/privacy/export: the file to hand to the visitor. */
export async function exportVisitorData(
  ctx: TenantContext,
  input: z.infer<typeof visitorExportSchema>,
): Promise<Response> {
  const data = await collectVisitorData(ctx, input);
  const day = data.exportedAt.slice(0, 10);
  const name = `michi-${ctx.tenant.slug}-visitor-${day}.${input.format}`;
  const body = input.format === "html" ? renderVisitorHtml(data) : JSON.stringify(data, null, 2);
  return new Response(body, {
    headers: {
      "Content-Type":
        input.format === "html" ? "text/html; charset=utf-8" : "application/json; charset=utf-8",
      "Content-Disposition": `attachment; filename="${name}"`,
      "X-Content-Type-Options": "nosniff",
      // The page is a file to keep, not part of the admin: no script runs in it, whatever a message says.
      "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; sandbox",
      "Cache-Control": "no-store",
    },
  });
}
