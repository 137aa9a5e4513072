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
  uniqueIndex,
  uuid,
  varchar,
} from "drizzle-orm/pg-core";
import type { FigureCheckMode } from "../../../shared/figure-check";

const created = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();
const updated = () => timestamp("updated_at", { withTimezone: true }).notNull().defaultNow();

/** One encrypted secret value; see src/lib/security/secrets.ts. */
export type SealedSecret = { kid: string; iv: string; ct: string; tag: string; setAt: string };

export type TenantStatus = "active" | "suspended";
export type Role = "owner" | "admin" | "viewer";

/** Settings the Bot page edits; stored as one document because they are read and written together. */
export type BotSettings = {
  displayName?: string;
  greeting?: string;
  /** Greetings in particular languages (by Lang code); a language without one shows `greeting`. */
  greetings?: Partial<Record<string, string>>;
  instructions?: string;
  model?: string;
  language?: string;
  color?: string;
  position?: "right" | "left";
  avatarUrl?: string;
  starters?: string[];
  /** Starter prompts in particular languages (by Lang code). */
  startersByLang?: Partial<Record<string, string[]>>;
  /** The contact form's consent text in particular languages (the request_human pack holds the main one). */
  consents?: Partial<Record<string, string>>;
  /** Packs that act for the visitor (a pack with `confirm`) are never offered to the model (issue 41). */
  actionsOff?: boolean;
  /** What to do with an answer stating a figure the turn's sources do not (src/shared/figure-check.ts). */
  figureCheck?: FigureCheckMode;
};

export type TenantRateLimits = {
  visitorPerMin?: number;
  ipPerMin?: number;
  tenantPerMin?: number;
  maxStreams?: number;
};

/** A visitor erased on request (drizzle/0052): a hash of their token's id, and when no token of theirs can live. */
export type ErasedVisitor = { h: string; until: string };

export const tenants = pgTable(
  "tenants",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    slug: text("slug").notNull(),
    name: text("name").notNull(),
    status: text("status").$type<TenantStatus>().notNull().default("active"),
    widgetKey: text("widget_key").notNull(),
    siteDomains: text("site_domains").array().notNull().default(sql`'{}'::text[]`),
    bot: jsonb("bot").$type<BotSettings>().notNull().default({}),
    monthlyTokenBudget: integer("monthly_token_budget"),
    rateLimits: jsonb("rate_limits").$type<TenantRateLimits>(),
    retentionDays: integer("retention_days").notNull().default(90),
    /** IANA zone name; the admin's dates and Usage days read in it (src/shared/dates.ts). */
    timeZone: text("time_zone").notNull().default("UTC"),
    /** When someone chose the zone (sign-up, Data & retention, the Overview's offer); null: never (drizzle/0054). */
    timeZoneChosenAt: timestamp("time_zone_chosen_at", { withTimezone: true }),
    knowledgeUploadQuota: integer("knowledge_upload_quota").notNull().default(104_857_600),
    knowledgePageCap: integer("knowledge_page_cap").notNull().default(5000),
    widgetSeenAt: timestamp("widget_seen_at", { withTimezone: true }),
    /** Signs the host page's visitor tokens (drizzle/0047); sealed, shown once, never read back to a browser. */
    visitorIdentitySecret: jsonb("visitor_identity_secret").$type<SealedSecret>(),
    /** Packs that ask for a verified visitor are offered only to one (docs/widget.md "Verified visitors"). */
    visitorIdentityRequired: boolean("visitor_identity_required").notNull().default(true),
    /** Visitors erased on request whose widget tokens are refused until they could have expired (0052). */
    erasedVisitors: jsonb("erased_visitors").$type<ErasedVisitor[]>().notNull().default([]),
    /** Days contact requests are kept; null: until deleted by hand (0052). */
    leadRetentionDays: integer("lead_retention_days"),
    /** Days the team's internal notes on conversations are kept; null: as long as the conversation (0052). */
    noteRetentionDays: integer("note_retention_days"),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [uniqueIndex("tenants_slug_key").on(t.slug), uniqueIndex("tenants_widget_key_key").on(t.widgetKey)],
);

export const users = pgTable(
  "users",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    email: text("email").notNull(),
    name: text("name").notNull().default(""),
    passwordHash: text("password_hash"),
    isOperator: boolean("is_operator").notNull().default(false),
    sessionVersion: integer("session_version").notNull().default(1),
    mustChangePassword: boolean("must_change_password").notNull().default(false),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [uniqueIndex("users_email_key").on(sql`lower(${t.email})`)],
);

export const memberships = pgTable(
  "memberships",
  {
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    role: text("role").$type<Role>().notNull(),
    createdAt: created(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.userId] }), index("memberships_user_idx").on(t.userId)],
);

export const auditLog = pgTable(
  "audit_log",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    actorUserId: uuid("actor_user_id").references(() => users.id, { onDelete: "set null" }),
    actorLabel: text("actor_label").notNull().default(""),
    action: text("action").notNull(),
    target: text("target").notNull().default(""),
    details: jsonb("details").$type<Record<string, unknown>>().notNull().default({}),
    createdAt: created(),
  },
  (t) => [index("audit_log_tenant_created_idx").on(t.tenantId, t.createdAt.desc(), t.id)],
);

/**
 * Counters of rate-limiter-flexible's Postgres store (the shape that library expects), created by a migration so
 * the library never runs CREATE TABLE itself: limiters built at the same moment raced on it. Platform data.
 */
export const rateLimits = pgTable("rate_limits", {
  key: varchar("key", { length: 255 }).primaryKey(),
  points: integer("points").notNull().default(0),
  expire: bigint("expire", { mode: "number" }),
});
