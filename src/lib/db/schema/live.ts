import { boolean, integer, jsonb, pgTable, primaryKey, timestamp, uuid } from "drizzle-orm/pg-core";
import { tenants, users } from "./core";

/** An agent's presence in a business's live console: online while heartbeats arrive, unless away (0028). */
export const livePresence = pgTable(
  "live_presence",
  {
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    seenAt: timestamp("seen_at", { withTimezone: true }).notNull().defaultNow(),
    away: boolean("away").notNull().default(false),
    /** Round-robin: the agent assigned longest ago goes first. */
    lastAssignedAt: timestamp("last_assigned_at", { withTimezone: true }),
  },
  (t) => [primaryKey({ name: "live_presence_pk", columns: [t.tenantId, t.userId] })],
);

/** Opening hours: per weekday (0 = Sunday) the open and close time "HH:MM" in `timeZone`. */
export type LiveHours = { timeZone: string; days: Partial<Record<number, { open: string; close: string }>> };

export type SavedReply = { title: string; text: string };

export const liveSettings = pgTable("live_settings", {
  tenantId: uuid("tenant_id")
    .primaryKey()
    .references(() => tenants.id, { onDelete: "cascade" }),
  maxPerAgent: integer("max_per_agent").notNull().default(3),
  escalateAfterMin: integer("escalate_after_min").notNull().default(5),
  hours: jsonb("hours").$type<LiveHours | null>(),
  savedReplies: jsonb("saved_replies").$type<SavedReply[]>().notNull().default([]),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});
