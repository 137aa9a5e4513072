import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uuid,
} from "drizzle-orm/pg-core";
import type { StoredFigureCheck } from "../../../shared/figure-check";
import type { LiveState } from "../../../shared/live-events";
import type { ToolOutcome } from "../../../shared/tool-run";
import { tenants, users } from "./core";

/** A visitor the business's own server vouched for: the token's sub, and what it said of them. */
export type VerifiedVisitor = { id: string; email?: string; name?: string };

export type MessageStatus = "complete" | "partial" | "failed";

export type MessageRole = "user" | "assistant" | "agent";

export const conversations = pgTable(
  "conversations",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    visitorId: text("visitor_id").notNull(),
    origin: text("origin").notNull().default(""),
    pageUrl: text("page_url").notNull().default(""),
    locale: text("locale").notNull().default(""),
    /** "web" for the widget, or the messaging channel the person wrote on (drizzle/0029). */
    channel: text("channel").$type<"web" | "whatsapp" | "telegram">().notNull().default("web"),
    startedAt: timestamp("started_at", { withTimezone: true }).notNull().defaultNow(),
    lastActivityAt: timestamp("last_activity_at", { withTimezone: true }).notNull().defaultNow(),
    /** Who answers: the bot, nobody yet (waiting for a person), a person, or the person's part closed (0028). */
    liveState: text("live_state").$type<LiveState>().notNull().default("bot"),
    /** Bumped by every live state change; a turn stores its answer only while it is unchanged. */
    liveVersion: integer("live_version").notNull().default(0),
    liveAgentId: uuid("live_agent_id").references(() => users.id, { onDelete: "set null" }),
    /** The round-robin chose liveAgentId, not a person (0041): it may give a waiting visitor on if they leave. */
    liveAutoAssigned: boolean("live_auto_assigned").notNull().default(false),
    liveRequestedAt: timestamp("live_requested_at", { withTimezone: true }),
    liveFirstResponseAt: timestamp("live_first_response_at", { withTimezone: true }),
    liveEndedAt: timestamp("live_ended_at", { withTimezone: true }),
    /** The visitor the host page's signed token named (drizzle/0047); null for an anonymous visitor. */
    verifiedVisitor: jsonb("verified_visitor").$type<VerifiedVisitor>(),
  },
  (t) => [
    index("conversations_tenant_activity_idx").on(t.tenantId, t.lastActivityAt.desc(), t.id),
    index("conversations_tenant_visitor_idx").on(t.tenantId, t.visitorId),
    index("conversations_tenant_channel_idx").on(t.tenantId, t.channel, t.lastActivityAt.desc()),
  ],
);

export const messages = pgTable(
  "messages",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    conversationId: uuid("conversation_id")
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
    /** 'agent': a person of the business wrote it in a live conversation (`agentId`). */
    role: text("role").$type<MessageRole>().notNull(),
    agentId: uuid("agent_id").references(() => users.id, { onDelete: "set null" }),
    content: text("content").notNull(),
    status: text("status").$type<MessageStatus>().notNull().default("complete"),
    reason: text("reason"),
    model: text("model"),
    promptTokens: integer("prompt_tokens").notNull().default(0),
    completionTokens: integer("completion_tokens").notNull().default(0),
    /** The provider generated but never reported usage, so the token figures are estimated from characters. */
    usageEstimated: boolean("usage_estimated").notNull().default(false),
    /** The figure check's verdict on a bot answer (drizzle/0048); null: off, or no figure in the answer. */
    figureCheck: jsonb("figure_check").$type<StoredFigureCheck>(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    /** The content accent- and case-folded for search (drizzle/0005); Postgres computes it on insert. */
    contentSearch: text("content_search").generatedAlwaysAs(sql`michi_search_fold(content)`),
  },
  (t) => [
    // With the id: the history is read newest first by (created_at, id), see drizzle/0013.
    index("messages_tenant_conversation_idx").on(t.tenantId, t.conversationId, t.createdAt, t.id),
    index("messages_tenant_created_idx").on(t.tenantId, t.createdAt),
    // Substring search of the admin conversation list (drizzle/0005_search_trigram.sql): trigrams of the
    // folded text.
    index("messages_content_trgm_idx").using("gin", sql`${t.contentSearch} gin_trgm_ops`),
  ],
);

export const toolRuns = pgTable(
  "tool_runs",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    conversationId: uuid("conversation_id")
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
    messageId: uuid("message_id").references(() => messages.id, { onDelete: "cascade" }),
    packId: text("pack_id").notNull(),
    callId: text("call_id").notNull(),
    args: jsonb("args").$type<unknown>(),
    result: text("result").notNull(),
    resultChars: integer("result_chars").notNull(),
    // Null since 2026-12-01: counted when a transcript or export is read, not on the turn (issue 17).
    resultTokens: integer("result_tokens"),
    durationMs: integer("duration_ms").notNull(),
    outcome: text("outcome").$type<ToolOutcome>().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("tool_runs_tenant_conversation_idx").on(t.tenantId, t.conversationId),
    index("tool_runs_tenant_created_idx").on(t.tenantId, t.createdAt),
  ],
);

/** Token usage per tenant and calendar month (UTC), kept apart from messages so retention never resets a budget. */
export const usageMonthly = pgTable(
  "usage_monthly",
  {
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    month: text("month").notNull(),
    promptTokens: bigint("prompt_tokens", { mode: "number" }).notNull().default(0),
    completionTokens: bigint("completion_tokens", { mode: "number" }).notNull().default(0),
    /** How many of the month's tokens were estimated (see messages.usage_estimated). */
    estimatedTokens: bigint("estimated_tokens", { mode: "number" }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.month] })],
);

export type PendingCallStatus =
  | "pending"
  | "confirmed"
  | "declined"
  | "expired"
  | "running"
  | "done"
  | "failed";

/**
 * A call of a pack with `confirm`, waiting for or decided by the visitor (drizzle/0046). `card` is what the
 * visitor was shown (title and worded values), so a reload shows the very same card again.
 */
export const pendingToolCalls = pgTable(
  "pending_tool_calls",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    conversationId: uuid("conversation_id")
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
    visitorMessageId: uuid("visitor_message_id").references(() => messages.id, { onDelete: "set null" }),
    packId: text("pack_id").notNull(),
    /** The model's id for the call, so the next round can be told its result under the same id. */
    callId: text("call_id").notNull(),
    args: jsonb("args").$type<Record<string, unknown>>().notNull(),
    card: jsonb("card").$type<{ title: string; fields: { label: string; value: string }[] }>().notNull(),
    idempotencyKey: uuid("idempotency_key").notNull().defaultRandom(),
    status: text("status").$type<PendingCallStatus>().notNull().default("pending"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    decidedAt: timestamp("decided_at", { withTimezone: true }),
    result: text("result"),
    outcome: text("outcome").$type<ToolOutcome>(),
  },
  (t) => [index("pending_tool_calls_conversation_idx").on(t.tenantId, t.conversationId, t.createdAt)],
);
