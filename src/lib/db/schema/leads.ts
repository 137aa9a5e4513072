import { sql } from "drizzle-orm";
import { index, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { conversations, messages } from "./chat";
import { tenants, users } from "./core";

// A visitor's request for a person: a lead (drizzle/0007_handoff.sql). Ratings and the unanswered report are in
// feedback.ts.

/** "booking": a booking request the visitor confirmed (the request_booking pack, drizzle/0051). */
export type LeadKind = "lead" | "handoff" | "booking";
export type LeadSource = "menu" | "assistant";
export type LeadStatus = "new" | "handled";
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
    /** A booking request's confirmed-call key: the same request filed twice is one row (drizzle/0051). */
    requestKey: uuid("request_key"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("leads_tenant_created_idx").on(t.tenantId, t.createdAt.desc(), t.id),
    index("leads_tenant_conversation_idx").on(t.tenantId, t.conversationId),
    uniqueIndex("leads_tenant_request_key")
      .on(t.tenantId, t.requestKey)
      .where(sql`${t.requestKey} is not null`),
  ],
);
