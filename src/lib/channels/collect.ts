import "server-only";
import type { ConfirmCard } from "../../shared/chat-events";
import type { Citation } from "../../shared/citations";
import type { TurnSink } from "../chat/run-turn";
import type { ContactRow } from "../db/queries/channels-messages";
import type { TenantRow } from "../db/queries/tenants";
import type { InboundStatus, OutboundReply } from "../db/schema";
import type { ReplyOffer } from "../outbox";
import { cardReply } from "./actions";
import type { ChannelAdapter } from "./adapter-types";
import { channelWords } from "./words";

// What a channel makes of a turn's (or a tapped card's round's) events: a channel cannot show a stream, so the
// sink gathers the answer, its sources, whether it failed or went to a person, and the confirmation card the
// model proposed; the replies are then stored in the outbox at once.

/** What answering one inbound message came to. */
export type Outcome = { status: InboundStatus; reply: OutboundReply[]; optedOutAt?: Date | null };

export type Collected = {
  text: string;
  cited: Citation[];
  failed: boolean;
  live: boolean;
  handoff: boolean;
  card: ConfirmCard | null;
};

/** A sink that gathers the events; a chip's start turns on the channel's typing hint. */
export function collector(typing: () => void): { got: Collected; sink: TurnSink } {
  const got: Collected = { text: "", cited: [], failed: false, live: false, handoff: false, card: null };
  return {
    got,
    sink: {
      // A channel cannot stop listening half-way; the turn always runs to its end.
      signal: new AbortController().signal,
      emit: (e) => {
        if (e.type === "delta") got.text += e.data.text;
        else if (e.type === "done") got.cited = e.data.citations ?? [];
        else if (e.type === "chip" && e.data.state === "start") typing();
        else if (e.type === "error") got.failed = true;
        else if (e.type === "live") got.live = true;
        else if (e.type === "handoff") got.handoff = true;
        else if (e.type === "confirm") got.card = e.data;
        // The figure check ends before anything is sent: hold sends the honest sentence instead of the
        // answer, mark sends the note under it.
        else if (e.type === "check")
          got.text = e.data.action === "hold" ? e.data.text : `${got.text}\n\n_${e.data.note}_`;
      },
    },
  };
}

/**
 * The replies of a gathered answer: its text with its sources (and the first answer's offer of buttons), then
 * the card with Confirm and Cancel when the model proposed one. Empty when there is nothing to say.
 */
export function answerReplies(
  adapter: ChannelAdapter,
  tenant: TenantRow,
  contact: ContactRow,
  got: Collected,
  offer: ReplyOffer | null,
  authSecret: string,
): OutboundReply[] {
  const words = channelWords(tenant.bot.language);
  const reply: OutboundReply[] = [];
  if (got.text.trim()) {
    reply.push({
      markdown: got.text,
      // Starters beside a card waiting for a tap would only compete with it.
      offer: got.card ? null : offer,
      sources: { label: words.sources, list: got.cited },
    });
  }
  if (got.card)
    reply.push(cardReply(adapter, tenant.bot.language, authSecret, contact.conversationId, got.card));
  return reply;
}
