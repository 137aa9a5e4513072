import { sql } from "drizzle-orm";
import {
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { tenants } from "./core";
import type { SealedSecret } from "./tools";

/** The events a business may subscribe an endpoint to; docs/webhooks.md describes each payload. */
export const WEBHOOK_EVENT_TYPES = [
  "lead.created",
  "feedback.created",
  "conversation.finished",
  "handoff.waiting",
  "visitor.erased",
  "booking.requested",
  "test_run.completed",
] as const;
/** Sent by "Send test event" to one endpoint; nobody subscribes to it. */
export const WEBHOOK_TEST_EVENT = "webhook.test";
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export type DeliveryStatus = "pending" | "retrying" | "delivered" | "failed";

/** Where a business wants its events sent. The signing secret is sealed like a pack secret, never shown twice. */
export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    description: text("description").notNull().default(""),
    events: text("events").array().$type<WebhookEventType[]>().notNull().default(sql`'{}'::text[]`),
    secret: jsonb("secret").$type<SealedSecret>().notNull(),
    enabled: boolean("enabled").notNull().default(true),
    /** Why the platform switched it off (sustained failure); shown as a notice until someone re-enables it. */
    disabledReason: text("disabled_reason"),
    disabledAt: timestamp("disabled_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("webhook_endpoints_tenant_idx").on(t.tenantId, t.createdAt)],
);

/** One event for one endpoint: the message as signed (same id on every attempt) and how its delivery went. */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    endpointId: uuid("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    /** The Standard Webhooks message id (`webhook-id`), shared by every endpoint that gets the event. */
    messageId: text("message_id").notNull(),
    eventType: text("event_type").$type<WebhookEventType | typeof WEBHOOK_TEST_EVENT>().notNull(),
    /** Makes an event idempotent per endpoint (a conversation's quiet period is announced once). */
    dedupeKey: text("dedupe_key").notNull(),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    status: text("status").$type<DeliveryStatus>().notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    lastAttemptAt: timestamp("last_attempt_at", { withTimezone: true }),
    deliveredAt: timestamp("delivered_at", { withTimezone: true }),
  },
  (t) => [
    index("webhook_deliveries_endpoint_idx").on(t.tenantId, t.endpointId, t.createdAt.desc()),
    uniqueIndex("webhook_deliveries_dedupe_key").on(t.endpointId, t.dedupeKey),
  ],
);
