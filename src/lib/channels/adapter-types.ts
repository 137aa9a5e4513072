import "server-only";
import type { ConnectionRow } from "../db/queries/channels";
import type { applyStatus, InboundRow } from "../db/queries/channels-messages";
import type { NewInbound } from "../db/queries/channels-queue";
import type { OutboundBody, RefusalReason } from "../db/schema";
import type { ReplyOffer } from "../outbox";
import type { SecretField } from "./identity";
import type { ReplySources } from "./sources";
import type { ChannelResult } from "./wire";

// What a channel is to the rest of the product: everything that differs between WhatsApp, Telegram and any
// channel after them, behind one shape, so the webhook, the answering job, the sender and the Channels page
// look the channel up in one table (adapter.ts) instead of asking which one it is. The widget has the same
// parts, described in these words in docs/architecture.md.

/** Where the providers' APIs are (tests and the bench: fake servers on loopback). */
export type ApiBases = { graphBaseUrl?: string; telegramBaseUrl?: string };

export type StatusUpdate = Parameters<typeof applyStatus>[2];

/** A verified delivery read: the people's messages to store, and the provider's reports on ours. */
export type ParsedDelivery = { inbound: NewInbound[]; statuses: StatusUpdate[] };

/** A tap acknowledged: whether it still gets an answer, and whether its buttons were taken away. */
export type TapOutcome = { answer: boolean; buttonsRemoved: boolean };

export type ChannelCheck = { ok: boolean; lines: string[] };

export type ChannelDescription = {
  /** "Connected as @bot.", or "Connected." when the provider names nobody. */
  status: string;
  /** The label beside the webhook URL: where it is pasted, or that it was registered for the business. */
  webhookLabel: string;
  /** How a customer confirms what a pack would do for them there (a booking, an order), or that they cannot. */
  actions: string;
};

/** A delivery as it reached the webhook, before a byte of it is parsed. */
export type RawDelivery = { headers: Headers; raw: Uint8Array };

/** The connection's secret for `field`, opened for this call only (throws when it no longer opens). */
export type OpenSecret = (field: SecretField) => string | null;

export type ChannelAdapter = {
  /** The channel's name in URLs and on the connection row. */
  channel: string;
  /** The start of its people's visitor ids ("wa", "tg"). */
  visitorPrefix: string;
  /** Who delivers its messages, in the Channels page's words ("Meta"). */
  provider: string;
  limits: {
    /** Characters in one message. */
    textMax: number;
    /** Characters in the message that carries buttons. */
    buttonBodyMax: number;
    /** Starters offered as buttons, with and without the person's button beside them. */
    starters: (withPerson: boolean) => number;
    /**
     * Buttons with ids of our own that one message can carry: a confirmation card needs two (Confirm and
     * Cancel, actions.ts). Below two, a pack that needs the person's yes is denied and the model told.
     */
    choices: number;
  };
  /** The provider allows replies only this long after the person's last message (WhatsApp's 24 hours). */
  window: { ms: number; errorCode: string } | null;
  words: {
    /** The secret that checks deliveries, by the name the Channels page gives it ("app secret"). */
    secret: string;
    /** How to store that secret again when it no longer opens. */
    storeAgain: string;
  };
  /** How the Channels page shows a connection: whom it is connected as, where its webhook URL goes. */
  describe(conn: ConnectionRow): ChannelDescription;
  /** Why a delivery is refused, or null when it passed its check. */
  verify(delivery: RawDelivery, secret: OpenSecret): RefusalReason | null;
  /** The provider's GET handshake's answer (null: refused); absent when the channel has none. */
  handshake?: (query: URLSearchParams, secret: OpenSecret) => string | null;
  parse(conn: ConnectionRow, json: unknown): ParsedDelivery;
  /**
   * Markdown, an offer of buttons and an answer's sources in (sources.ts), the channel's bodies out: split
   * under its limits.
   */
  format(markdown: string, offer: ReplyOffer | null, sources?: ReplySources | null): OutboundBody[];
  send(api: ApiBases, conn: ConnectionRow, to: string, body: OutboundBody): Promise<ChannelResult>;
  /** "Typing…" while the answer is being written, where the channel has it. */
  typing(api: ApiBases, conn: ConnectionRow, to: string, inbound: InboundRow): Promise<unknown>;
  acknowledgeTap(api: ApiBases, conn: ConnectionRow, to: string, inbound: InboundRow): Promise<TapOutcome>;
  /**
   * "Check connection": asks the provider with the stored token. `refused`: the refusals in words; `tz`: the
   * business's time zone, for any time the answer names.
   */
  check(api: ApiBases, conn: ConnectionRow, refused: string | null, tz: string): Promise<ChannelCheck>;
  /** After the connection row is gone: tells the provider to stop delivering, where it can be told. */
  disconnect(api: ApiBases, conn: ConnectionRow): Promise<void>;
};
