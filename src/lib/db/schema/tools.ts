import { boolean, jsonb, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { type SealedSecret, tenants, users } from "./core";

// Declared beside the tenants table, whose identity secret is sealed the same way (core cannot import this file).
export type { SealedSecret };

/** A tenant's saved parameters for one pack. Secrets live apart from plain values so they are never echoed. */
export const packConfigs = pgTable(
  "pack_configs",
  {
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    packId: text("pack_id").notNull(),
    enabled: boolean("enabled").notNull().default(false),
    config: jsonb("config").$type<Record<string, unknown>>().notNull().default({}),
    secrets: jsonb("secrets").$type<Record<string, SealedSecret>>().notNull().default({}),
    updatedBy: uuid("updated_by").references(() => users.id, { onDelete: "set null" }),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    /** The Test panel's last run of this pack ("ok", "error", "timeout"…), for the Tools list. */
    lastTestOutcome: text("last_test_outcome"),
    lastTestAt: timestamp("last_test_at", { withTimezone: true }),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.packId] })],
);
