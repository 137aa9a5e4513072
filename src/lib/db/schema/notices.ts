import { integer, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { tenants } from "./core";

/** Notices sent to a business about its own set-up; the key makes each one go out once (drizzle/0021). */
export const tenantNotices = pgTable(
  "tenant_notices",
  {
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    kind: text("kind").$type<"pack_failing" | "budget">().notNull(),
    key: text("key").notNull(),
    sentAt: timestamp("sent_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ name: "tenant_notices_pk", columns: [t.tenantId, t.kind, t.key] })],
);

/** Sites the loader reported as refused (not among the site domains), for Site & embed (drizzle/0022). */
export const widgetRefusedOrigins = pgTable(
  "widget_refused_origins",
  {
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    origin: text("origin").notNull(),
    firstSeenAt: timestamp("first_seen_at", { withTimezone: true }).notNull().defaultNow(),
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true }).notNull().defaultNow(),
    hits: integer("hits").notNull().default(1),
  },
  (t) => [primaryKey({ name: "widget_refused_origins_pk", columns: [t.tenantId, t.origin] })],
);
