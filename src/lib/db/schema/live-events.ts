import { bigint, index, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import type { LiveKind } from "../../../shared/live-events";
import { conversations } from "./chat";
import { tenants } from "./core";

/** The live takeover's append-only log; `seq` is the SSE event id (drizzle/0027). */
export const liveEvents = pgTable(
  "live_events",
  {
    seq: bigint("seq", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    conversationId: uuid("conversation_id")
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
    kind: text("kind").$type<LiveKind>().notNull(),
    data: jsonb("data").$type<unknown>().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("live_events_conversation_seq_idx").on(t.tenantId, t.conversationId, t.seq),
    index("live_events_tenant_seq_idx").on(t.tenantId, t.seq),
  ],
);
