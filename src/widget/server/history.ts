// GET /api/widget/[key]/conversations/[id]: the visitor's own earlier messages, so the panel can show the
// conversation again after a reload. Same key, origin and token rules as the chat endpoint; a conversation
// of another visitor (or another tenant) is simply not found.
import "server-only";
import { z } from "zod";
import { cardOf } from "@/lib/chat/confirm-round";
import { findVisitorConversation, listMessages, listToolRunChips } from "@/lib/db/queries/conversations";
import { ratingsOfConversation } from "@/lib/db/queries/feedback";
import { agentNamesOf } from "@/lib/db/queries/live-conversations";
import { openCall } from "@/lib/db/queries/pending-calls";
import { AppError, errorResponse } from "@/lib/errors";
import { findPack } from "@/lib/tools";
import { chipLabel } from "@/lib/tools/runtime";
import { type Citation, citationsFrom } from "@/shared/citations";
import { figureNote } from "@/shared/figure-check";
import { isLang, langOf } from "@/shared/languages";
import type { VisitorAgent } from "@/shared/live-events";
import { corsHeaders } from "./cors";
import type { WidgetStoreDeps } from "./deps";
import { allowedOrigin, assertActive, dbStep, requireVisitor, tenantForKey } from "./guard";
import { visitorAgent } from "./visitor-agent";

const HISTORY_LIMIT = 200;

/**
 * One stored message as the panel shows it again: an answer carries its chips (the pack's label in the
 * widget's language, and whether the run failed) and, when it did not complete, its status and reason code,
 * which the panel words itself. Ids let the panel retry an unanswered question by reference.
 */
export type HistoryMessage = {
  id: string;
  /** 'agent': a person of the business wrote it, in a live conversation (`agent` names them). */
  role: "user" | "assistant" | "agent";
  agent?: VisitorAgent;
  content: string;
  createdAt: string;
  status?: "partial" | "failed";
  reason?: string;
  chips?: { label: string; state: "done" | "error" }[];
  /** The indexed pages the answer cited, from its own search result (never from its text). */
  citations?: Citation[];
  /** The figure check marked the answer: the note under it, in the panel's language. */
  note?: string;
  /** The visitor's own thumbs on this answer, so the pressed button shows again after a reload. */
  rating?: "up" | "down";
};

/**
 * Browsers send no Origin on a same-origin GET, which is exactly how the panel asks; such a request must
 * say so with Sec-Fetch-Site. Any request that carries an Origin must carry an allowed one.
 */
export function checkOrigin(
  req: Request,
  tenant: Parameters<typeof allowedOrigin>[1],
  platform: string,
): string | null {
  if (req.headers.get("origin") === null && req.headers.get("sec-fetch-site") === "same-origin") return null;
  return allowedOrigin(req, tenant, platform);
}

/**
 * The checks every visitor route of one conversation makes, in this order: key, origin, tenant status,
 * visitor token, the id's shape. The origin's CORS headers reach `onCors` as soon as the origin is known, so a
 * refusal after it still carries them (the panel can read the error). Whether the conversation is the
 * visitor's is the caller's read, inside its own tenant transaction; `notFound` is the answer when it is not.
 */
export async function admitConversationRead(
  req: Request,
  key: string,
  id: string,
  deps: WidgetStoreDeps,
  onCors: (headers: Record<string, string>) => void,
) {
  const e = deps.env();
  const db = await dbStep(() => deps.db());
  const tenant = await tenantForKey(db, key);
  onCors(corsHeaders(checkOrigin(req, tenant, e.MICHI_PUBLIC_URL)));
  assertActive(tenant);
  const visitor = await requireVisitor(req, tenant, e.MICHI_AUTH_SECRET);
  const notFound = new AppError("not_found", "This conversation is not available.");
  if (!z.uuid().safeParse(id).success) throw notFound;
  return { db, tenant, visitor, notFound, e };
}

export async function handleHistory(req: Request, key: string, id: string, deps: WidgetStoreDeps) {
  let cors = corsHeaders(null);
  try {
    const { db, tenant, visitor, notFound, e } = await admitConversationRead(req, key, id, deps, (h) => {
      cors = h;
    });
    const view = { key, tenantId: tenant.id, visitorId: visitor.visitorId, authSecret: e.MICHI_AUTH_SECRET };
    const found = await dbStep(() =>
      db.forTenant(tenant.id, async (tx) => {
        const conversation = await findVisitorConversation(tx, id, visitor.visitorId);
        return conversation
          ? {
              live: conversation.liveState,
              rows: await listMessages(tx, id),
              runs: await listToolRunChips(tx, id),
              agents: await agentNamesOf(tx, id),
              ratings: await ratingsOfConversation(tx, tenant.id, id),
              // A card still waiting shows again after a reload; never while a person has the conversation.
              pending: conversation.liveState === "bot" ? await openCall(tx, id, new Date()) : null,
            }
          : null;
      }),
    );
    if (!found) throw notFound;
    const requested = new URL(req.url).searchParams.get("lang");
    const lang = isLang(requested) ? requested : tenant.bot.language;
    const chips = new Map<string, NonNullable<HistoryMessage["chips"]>>();
    const searches = new Map<string, { packId: string; result: string }[]>();
    for (const run of found.runs) {
      if (run.messageId && run.result !== null)
        searches.set(run.messageId, [
          ...(searches.get(run.messageId) ?? []),
          { packId: run.packId, result: run.result },
        ]);
      const pack = run.messageId && !run.platform ? findPack(run.packId) : undefined;
      // Like the live stream: a run of a pack we cannot name gets no chip.
      if (!pack || !run.messageId) continue;
      const list = chips.get(run.messageId) ?? [];
      list.push({ label: chipLabel(pack, lang), state: run.outcome === "ok" ? "done" : "error" });
      chips.set(run.messageId, list);
    }
    const agentOf = (id: string | null): VisitorAgent => {
      const a = id ? found.agents.get(id) : undefined;
      return a && id ? visitorAgent(view, { id, ...a }) : { name: "" };
    };
    // A failed answer stays (empty) so the panel knows the question before it went unanswered.
    const citationsOf = (m: (typeof found.rows)[number]) =>
      m.role === "assistant" && m.status === "complete"
        ? citationsFrom(m.content, searches.get(m.id) ?? [])
        : [];
    const messages: HistoryMessage[] = found.rows
      .filter((m) => m.content.trim() !== "" || (m.role === "assistant" && m.status !== "complete"))
      .slice(-HISTORY_LIMIT)
      .map((m) => ({
        id: m.id,
        role: m.role,
        content: m.content,
        createdAt: m.createdAt.toISOString(),
        ...(m.role === "agent" ? { agent: agentOf(m.agentId) } : {}),
        ...(m.role === "assistant" && m.status !== "complete"
          ? { status: m.status, ...(m.reason ? { reason: m.reason } : {}) }
          : {}),
        ...(chips.has(m.id) ? { chips: chips.get(m.id) } : {}),
        ...(citationsOf(m).length ? { citations: citationsOf(m) } : {}),
        ...(m.figureCheck?.mode === "mark" && m.figureCheck.unsupported > 0
          ? { note: figureNote(langOf(lang)) }
          : {}),
        ...(found.ratings.has(m.id) ? { rating: found.ratings.get(m.id)?.rating } : {}),
      }));
    return Response.json(
      // `live`: who answers now (bot, waiting for a person, a person, or closed), so the panel can follow the
      // conversation's live stream after a reload.
      {
        conversationId: id,
        live: found.live,
        messages,
        ...(found.pending ? { pending: cardOf(found.pending) } : {}),
      },
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
