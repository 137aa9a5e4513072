// GET /api/widget/[key]/conversations/[id]: the visitor's own earlier messages, so the panel can show the
// conversation again after a reload. Same key, origin and token rules as the chat endpoint; a conversation
// of another visitor (or another tenant) is simply not found.
import "server-only";
import { z } from "zod";
import { findVisitorConversation, listMessages } from "@/lib/db/queries/conversations";
import { AppError, errorResponse } from "@/lib/errors";
import { corsHeaders } from "./cors";
import type { WidgetStoreDeps } from "./deps";
import { allowedOrigin, assertActive, dbStep, requireVisitor, tenantForKey } from "./guard";

const HISTORY_LIMIT = 200;

/** `id` lets the panel rate an earlier answer again after a reload. */
export type HistoryMessage = { id: string; role: "user" | "assistant"; content: string; createdAt: string };

/**
 * Browsers send no Origin on a same-origin GET, which is exactly how the panel asks; such a request must
 * say so with Sec-Fetch-Site. Any request that carries an Origin must carry an allowed one.
 */
function checkOrigin(
  req: Request,
  tenant: Parameters<typeof allowedOrigin>[1],
  platform: string,
): string | null {
  if (req.headers.get("origin") === null && req.headers.get("sec-fetch-site") === "same-origin") return null;
  return allowedOrigin(req, tenant, platform);
}

export async function handleHistory(req: Request, key: string, id: string, deps: WidgetStoreDeps) {
  let cors = corsHeaders(null);
  try {
    const e = deps.env();
    const db = await dbStep(() => deps.db());
    const tenant = await tenantForKey(db, key);
    cors = corsHeaders(checkOrigin(req, tenant, e.MICHI_PUBLIC_URL));
    assertActive(tenant);
    const visitor = requireVisitor(req, tenant, e.MICHI_AUTH_SECRET);
    const notFound = new AppError("not_found", "This conversation is not available.");
    if (!z.uuid().safeParse(id).success) throw notFound;
    const rows = await dbStep(() =>
      db.forTenant(tenant.id, async (tx) =>
        (await findVisitorConversation(tx, id, visitor.visitorId)) ? listMessages(tx, id) : null,
      ),
    );
    if (!rows) throw notFound;
    const messages: HistoryMessage[] = rows
      .filter((m) => m.content.trim() !== "")
      .slice(-HISTORY_LIMIT)
      .map((m) => ({ id: m.id, role: m.role, content: m.content, createdAt: m.createdAt.toISOString() }));
    return Response.json(
      { conversationId: id, messages },
      { headers: { ...cors, "Cache-Control": "no-store" } },
    );
  } catch (err) {
    return errorResponse(err, cors);
  }
}

export async function handleHistoryPreflight(req: Request, key: string, deps: WidgetStoreDeps) {
  try {
    const tenant = await tenantForKey(await dbStep(() => deps.db()), key);
    const origin = allowedOrigin(req, tenant, deps.env().MICHI_PUBLIC_URL);
    return new Response(null, {
      status: 204,
      headers: {
        ...corsHeaders(origin),
        "Access-Control-Allow-Methods": "GET, OPTIONS",
        "Access-Control-Allow-Headers": "Authorization",
        "Access-Control-Max-Age": "600",
      },
    });
  } catch (err) {
    return errorResponse(err, corsHeaders(null));
  }
}
