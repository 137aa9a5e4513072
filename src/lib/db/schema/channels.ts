import {
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import type { Citation } from "../../../shared/citations";
import { conversations } from "./chat";
import { tenants } from "./core";
import type { SealedSecret } from "./tools";

// Messaging channels (drizzle/0029_channels.sql): how a business is connected, the people who write, every
// inbound message once and every message sent with its status. The SQL file says where phone numbers live.

export const CHANNELS = ["whatsapp", "telegram"] as const;
export type Channel = (typeof CHANNELS)[number];
/** What a conversation records as its channel: the widget's is "web". */
export type ConversationChannel = "web" | Channel;

export type InboundStatus = "pending" | "done" | "skipped" | "failed";
export type OutboundStatus = "queued" | "sent" | "delivered" | "read" | "failed" | "outside_window";

/** Why a webhook delivery was refused; words for each are in src/lib/channels/refusals.ts. */
export type RefusalReason =
  | "missing_signature"
  | "bad_signature"
  | "missing_secret_token"
  | "wrong_secret_token"
  | "secret_unreadable";

/** A channel's plain settings; everything secret is in `secrets`. */
export type ChannelSettings = { phoneNumberId?: string; botUsername?: string };

export const channelConnections = pgTable(
  "channel_connections",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    channel: text("channel").$type<Channel>().notNull(),
    key: text("key").notNull(),
    settings: jsonb("settings").$type<ChannelSettings>().notNull().default({}),
    secrets: jsonb("secrets").$type<Record<string, SealedSecret>>().notNull().default({}),
    enabled: boolean("enabled").notNull().default(true),
    lastInboundAt: timestamp("last_inbound_at", { withTimezone: true }),
    lastOutboundAt: timestamp("last_outbound_at", { withTimezone: true }),
    lastError: text("last_error"),
    lastErrorAt: timestamp("last_error_at", { withTimezone: true }),
    /** The last refused webhook delivery (drizzle/0037): when, a fixed reason, and how many since a good one. */
    lastRefusedAt: timestamp("last_refused_at", { withTimezone: true }),
    lastRefusedReason: text("last_refused_reason").$type<RefusalReason>(),
    refusedCount: integer("refused_count").notNull().default(0),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("channel_connections_key").on(t.key),
    uniqueIndex("channel_connections_tenant_channel").on(t.tenantId, t.channel),
  ],
);

export const channelContacts = pgTable(
  "channel_contacts",
  {
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    connectionId: uuid("connection_id")
      .notNull()
      .references(() => channelConnections.id, { onDelete: "cascade" }),
    /** The phone number (WhatsApp) or chat id (Telegram) replies go to: personal data. */
    address: text("address").notNull(),
    conversationId: uuid("conversation_id")
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
    /** When the person last wrote: WhatsApp's 24-hour customer-service window starts here. */
    lastInboundAt: timestamp("last_inbound_at", { withTimezone: true }),
    optedOutAt: timestamp("opted_out_at", { withTimezone: true }),
    /** Held by the worker answering this person, so their messages are answered one at a time, in order. */
    busyUntil: timestamp("busy_until", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: "channel_contacts_pk", columns: [t.connectionId, t.address] }),
    index("channel_contacts_conversation_idx").on(t.tenantId, t.conversationId),
  ],
);

/** What an inbound message carries for the worker; cleared once processed. */
/**
 * `button`: the id (WhatsApp) or callback_data (Telegram) of the button the person tapped, with its label as
 * `text`; the answer reads what the button stands for (channels/buttons.ts).
 */
/**
 * A Telegram tap also carries `tapped`, the message id of the bot's message whose keyboard was tapped, and
 * `keyboardRemoved` once this tap's job removed that keyboard (so a retry of the job still answers it).
 */
export type InboundBody = {
  text?: string;
  kind?: string;
  callbackId?: string;
  button?: string;
  tapped?: number;
  keyboardRemoved?: boolean;
};

export const channelInbound = pgTable(
  "channel_inbound",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    connectionId: uuid("connection_id")
      .notNull()
      .references(() => channelConnections.id, { onDelete: "cascade" }),
    externalId: text("external_id").notNull(),
    /** The contact's hash (the conversation's visitor id): orders one person's messages without their number. */
    contact: text("contact").notNull(),
    address: text("address"),
    kind: text("kind").notNull(),
    body: jsonb("body").$type<InboundBody>(),
    sentAt: timestamp("sent_at", { withTimezone: true }).notNull(),
    receivedAt: timestamp("received_at", { withTimezone: true }).notNull().defaultNow(),
    status: text("status").$type<InboundStatus>().notNull().default("pending"),
    processedAt: timestamp("processed_at", { withTimezone: true }),
    /** When its job was queued (after the row's own commit); null until then, which the sweep looks for. */
    queuedAt: timestamp("queued_at", { withTimezone: true }),
  },
  (t) => [uniqueIndex("channel_inbound_external").on(t.connectionId, t.externalId)],
);

/**
 * One message to send: text, and buttons where the channel has them: `buttons` the starters' texts, `person`
 * the label of a "Talk to a person" button after them, `choices` buttons that carry an id of their own (a
 * confirmation card's Confirm and Cancel, channels/actions.ts), sent alone.
 */
export type OutboundBody = {
  text: string;
  buttons?: string[];
  person?: string;
  choices?: { id: string; title: string }[];
};

/**
 * A reply as it is stored (drizzle/0044): Markdown and the buttons it offers (starters' texts, the person's
 * label), the same for every channel; the sender formats it for the channel when it sends it. An answer of
 * the assistant carries its `sources` too (the passages it cited as [n], none when it cited nothing, and the
 * list's heading in the bot's language); other replies (a person's, the platform's words) have none. Rows
 * stored before sources existed have none either and are sent as they were written.
 */
export type OutboundReply = {
  markdown: string;
  offer?: Pick<OutboundBody, "buttons" | "person" | "choices"> | null;
  sources?: { label: string; list: Citation[] };
};

export const channelOutbound = pgTable(
  "channel_outbound",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    connectionId: uuid("connection_id")
      .notNull()
      .references(() => channelConnections.id, { onDelete: "cascade" }),
    conversationId: uuid("conversation_id")
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
    /** The replies of one answer share a batch and go out in (`part`, `piece`) order by one job. */
    batch: uuid("batch").notNull(),
    part: integer("part").notNull(),
    /** A reply's pieces once formatted: the reply's own row is piece 0, the channel's further messages 1…. */
    piece: integer("piece").notNull().default(0),
    /** The reply as stored (null on pieces after the first, and on rows queued before 0044). */
    reply: jsonb("reply").$type<OutboundReply>(),
    /** The channel's message: null until the sender formats the reply. */
    body: jsonb("body").$type<OutboundBody>(),
    externalId: text("external_id"),
    status: text("status").$type<OutboundStatus>().notNull().default("queued"),
    errorCode: text("error_code"),
    errorTitle: text("error_title"),
    attempts: integer("attempts").notNull().default(0),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("channel_outbound_batch_idx").on(t.tenantId, t.batch, t.part),
    index("channel_outbound_external_idx").on(t.connectionId, t.externalId),
  ],
);

/** The operator's platform-wide switch (one row). */
export const channelPlatform = pgTable("channel_platform", {
  id: boolean("id").primaryKey().default(true),
  enabled: boolean("enabled").notNull().default(true),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});
