// POST /api/widget/[key]/conversations/[id]/confirm: the visitor's tap on a confirmation card, `{ callId,
// decision: "confirm" | "cancel" }`. The same key, origin and token rules as the other routes of one
// conversation: the conversation must be the visitor's, and the call must be of that conversation (a guessed
// id of another one is not found). The answer is the next round as text/event-stream, like the chat's.
import "server-only";
import { z } from "zod";
import { startDecision } from "@/lib/chat/decide-turn";
import { eventStream, SSE_HEADERS } from "@/lib/chat/events";
import type { TurnDeps } from "@/lib/chat/run-turn";
import { AppError, errorResponse, isAppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { langOf } from "@/shared/languages";
import { corsHeaders } from "./cors";
import type { WidgetDeps } from "./deps";
import { assertActive, requireVisitor } from "./guard";
import { guarded, readJson } from "./store-request";

const bodySchema = z.object({
  callId: z.uuid(),
  decision: z.enum(["confirm", "cancel"]),
  lang: z.string().max(35).optional(),
});

export async function handleConfirm(req: Request, key: string, id: string, deps: WidgetDeps) {
  let cors = corsHeaders(null);
  let opened: Awaited<ReturnType<typeof startDecision>> | undefined;
  try {
    const g = await guarded(req, key, deps);
    cors = g.cors;
    assertActive(g.tenant);
    const visitor = await requireVisitor(req, g.tenant, g.e.MICHI_AUTH_SECRET);
    const notFound = new AppError("not_found", "This request is not available.");
    if (!z.uuid().safeParse(id).success) throw notFound;
    const body = bodySchema.safeParse(await readJson(req));
    if (!body.success) throw new AppError("invalid_input", "The request is not valid.");
    const turnDeps: TurnDeps = {
      db: g.db,
      env: g.e,
      packs: deps.packs,
      modelClient: deps.modelClient,
      storeRetry: deps.storeRetry,
    };
    opened = await startDecision(turnDeps, {
      tenant: g.tenant,
      visitorId: visitor.visitorId,
      visitor: visitor.verified,
      conversationId: id,
      callId: body.data.callId,
      decision: body.data.decision,
      lang: langOf(body.data.lang) ?? langOf(g.tenant.bot.language),
    });
    const decision = opened;
    opened = undefined; // the stream runs it, and frees its slot, from here on
    const stream = eventStream((emit, signal) => decision.run({ emit, signal }).then(() => undefined), {
      signal: req.signal,
    });
    return new Response(stream, { headers: { ...SSE_HEADERS, ...cors } });
  } catch (err) {
    opened?.cancel();
    if (!isAppError(err)) log().error({ err }, "widget confirm request failed");
    return errorResponse(err, cors);
  }
}
