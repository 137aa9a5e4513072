import { index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { conversations, messages } from "./chat";
import { tenants, users } from "./core";

// Hand-off to a person, answer ratings and the unanswered-questions report (drizzle/0007_handoff.sql).

export type LeadKind = "lead" | "handoff";
export type LeadSource = "menu" | "assistant";
export type LeadStatus = "new" | "handled";
export type Rating = "up" | "down";
/** Whether the business was told by mail (drizzle/0014_lead_mail_status.sql). */
export type LeadMailStatus = "none" | "sent" | "failed";

/**
 * A visitor's request to be contacted ("lead"), or a hand-off the assistant offered that the visitor has not
 * answered with contact details yet ("handoff"). It outlives its conversation (retention may purge that first).
 */
export const leads = pgTable(
  "leads",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    conversationId: uuid("conversation_id").references(() => conversations.id, { onDelete: "set null" }),
    /** The answer whose turn offered the hand-off, when the assistant did. */
    messageId: uuid("message_id").references(() => messages.id, { onDelete: "set null" }),
    kind: text("kind").$type<LeadKind>().notNull().default("lead"),
    source: text("source").$type<LeadSource>().notNull().default("menu"),
    name: text("name").notNull().default(""),
    email: text("email").notNull().default(""),
    phone: text("phone").notNull().default(""),
    message: text("message").notNull().default(""),
    /** The consent text the visitor agreed to, as it read at that moment. */
    consentText: text("consent_text").notNull().default(""),
    locale: text("locale").notNull().default(""),
    status: text("status").$type<LeadStatus>().notNull().default("new"),
    handledBy: uuid("handled_by").references(() => users.id, { onDelete: "set null" }),
    handledByLabel: text("handled_by_label").notNull().default(""),
    handledAt: timestamp("handled_at", { withTimezone: true }),
    mailStatus: text("mail_status").$type<LeadMailStatus>().notNull().default("none"),
    /** The mail server's reason while mailStatus is "failed". */
    mailError: text("mail_error").notNull().default(""),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("leads_tenant_created_idx").on(t.tenantId, t.createdAt.desc(), t.id),
    index("leads_tenant_conversation_idx").on(t.tenantId, t.conversationId),
  ],
);

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
