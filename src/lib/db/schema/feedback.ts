import { index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { conversations, messages } from "./chat";
import { tenants, users } from "./core";

// Visitors' answer ratings and the unanswered-questions report (drizzle/0007_handoff.sql).

export type Rating = "up" | "down";

/** A visitor's rating of one answer; rating again replaces it. */
export const messageFeedback = pgTable(
  "message_feedback",
  {
    messageId: uuid("message_id")
      .primaryKey()
      .references(() => messages.id, { onDelete: "cascade" }),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    conversationId: uuid("conversation_id")
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
    rating: text("rating").$type<Rating>().notNull(),
    comment: text("comment").notNull().default(""),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("message_feedback_tenant_created_idx").on(t.tenantId, t.createdAt),
    index("message_feedback_tenant_conversation_idx").on(t.tenantId, t.conversationId),
  ],
);

/** Visitor questions of the unanswered report an admin marked as handled. */
export const unansweredHandled = pgTable(
  "unanswered_handled",
  {
    messageId: uuid("message_id")
      .primaryKey()
      .references(() => messages.id, { onDelete: "cascade" }),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    handledBy: uuid("handled_by").references(() => users.id, { onDelete: "set null" }),
    handledAt: timestamp("handled_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("unanswered_handled_tenant_idx").on(t.tenantId)],
);
