// The widget chat's event stream as it travels: each event goes out as one Server-Sent Event named by `type`,
// with `data` as its JSON. The server writes exactly these (src/lib/chat/events.ts) and the panel reads
// exactly these (src/widget/panel/sse.ts), so a field one side sends is a field the other side knows. Nothing
// here ever carries tool arguments or results: a chip shows only the pack's label, and `done` only the title
// and address of each indexed page the answer cites (src/shared/citations.ts).

import type { Citation } from "./citations";

export type ChipState = "start" | "done" | "error";

/**
 * A call that waits for the visitor's explicit Confirm (a pack with `confirm`): the values are already worded
 * and labelled by the server, so the panel only lays them out. `callId` names the stored pending call, not
 * the model's call; the panel sends it back with the visitor's decision.
 */
export type ConfirmCard = {
  callId: string;
  title: string;
  fields: { label: string; value: string }[];
  /** After this instant the call has expired and a tap is refused. */
  expiresAt: string;
};

export type ChatEvent =
  /**
   * Always the first event, sent once the visitor's message is stored: the widget keeps the conversation at
   * once (a reload mid-answer finds it again) and can retry this very message instead of storing it twice.
   */
  | { type: "start"; data: { conversationId: string; visitorMessageId: string } }
  | { type: "chip"; data: { callId: string; label: string; state: ChipState } }
  | { type: "delta"; data: { text: string } }
  | { type: "done"; data: { conversationId: string; messageId: string; citations?: Citation[] } }
  /**
   * Sent just before `done` when the answer states a figure none of the turn's sources states (the figure
   * check, src/lib/chat/figures): `mark` shows `note` under the answer; `hold` replaces the streamed answer
   * with `text` (what was stored) and offers a person.
   */
  | { type: "check"; data: { action: "mark"; note: string } | { action: "hold"; text: string } }
  /**
   * A person was asked for or has this conversation: the bot does not answer (a partial answer streamed before
   * a person took over is not kept), and what follows arrives on the conversation's live stream.
   */
  | { type: "live"; data: { conversationId: string } }
  /** A pack with `confirm` was called: the panel shows the card; nothing runs until the visitor confirms. */
  | { type: "confirm"; data: ConfirmCard }
  /** A pack with `ui: "contact_form"` (request_human) ran: the panel shows its contact form under the answer. */
  | { type: "handoff"; data: Record<string, never> }
  /**
   * The turn ended without a whole answer. `messageId` names the stored partial or failed answer, when one was
   * stored; an answer that could not be stored has none.
   */
  | { type: "error"; data: { code: string; message: string; conversationId?: string; messageId?: string } };
