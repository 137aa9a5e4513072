import "server-only";
import { langOf } from "../../shared/languages";
import { startDecision } from "../chat/decide-turn";
import type { ConnectionRow } from "../db/queries/channels";
import type { ContactRow, InboundRow } from "../db/queries/channels-messages";
import type { TenantRow } from "../db/queries/tenants";
import { isAppError } from "../errors";
import { log } from "../log";
import { readActionId } from "./actions";
import { adapterFor } from "./adapter";
import { answerReplies, collector, type Outcome } from "./collect";
import { type ChannelDeps, turnDeps } from "./deps";
import { typingIndicator } from "./reply-format";
import { channelWords } from "./words";

// A tap on a confirmation card's button (actions.ts) on WhatsApp or Telegram: the widget's decision
// (decide-turn.ts) for the person's own conversation, so the call runs at most once (one conditional update),
// with its stored idempotency key, and the model's next round, the answer with the result, is the reply. A
// tap that is not this conversation's card, or comes after the card was decided, changes nothing and gets
// one short sentence; a typed "yes" never comes here (it is a new message, which declines the card).

export async function decisionReply(
  deps: ChannelDeps,
  conn: ConnectionRow,
  tenant: TenantRow,
  contact: ContactRow,
  inbound: InboundRow,
  id: string,
): Promise<Outcome> {
  const words = channelWords(tenant.bot.language);
  const say = (markdown: string): Outcome => ({ status: "done", reply: [{ markdown }] });
  const tap = readActionId(deps.env.MICHI_AUTH_SECRET, contact.conversationId, id);
  if (!tap) return say(words.actionClosed);
  const adapter = adapterFor(conn.channel);
  let opened: Awaited<ReturnType<typeof startDecision>>;
  try {
    opened = await startDecision(turnDeps(deps), {
      tenant,
      visitorId: inbound.contact,
      conversationId: contact.conversationId,
      callId: tap.callId,
      decision: tap.decision,
      lang: langOf(tenant.bot.language),
    });
  } catch (err) {
    if (!isAppError(err)) throw err;
    log().info({ tenantId: tenant.id, code: err.code }, "channel card tap refused");
    // Too many confirmed calls just now, or the model away: the card stays open for another tap.
    const later = err.code === "rate_limited" || err.code === "model_not_configured";
    return say(later ? words.unavailable : words.actionClosed);
  }
  const { got, sink } = collector(typingIndicator(deps, adapter, conn, contact, inbound));
  await opened.run(sink);
  const reply = answerReplies(adapter, tenant, contact, got, null, deps.env.MICHI_AUTH_SECRET);
  return reply.length > 0 ? { status: "done", reply } : say(words.unavailable);
}
