import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  customType,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uuid,
} from "drizzle-orm/pg-core";
import { tenants, users } from "./core";

// The business's knowledge (drizzle/0015_knowledge.sql). The generated search columns (tsv, head_tsv, folded) and the
// embedding's bit string are written by Postgres or by plain SQL in queries/knowledge*.ts, so they are not
// declared here.

export type SourceKind = "website" | "document";
export type SyncSchedule = "off" | "daily" | "weekly";
export type SyncState = "idle" | "queued" | "syncing";
export type PageStatus = "pending" | "indexed" | "skipped" | "failed";
export type SkipReason =
  | "robots"
  | "noindex"
  | "duplicate"
  | "too_large"
  | "off_domain"
  | "excluded"
  | "not_html"
  | "empty"
  | "over_cap";

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => "bytea" });

export const knowledgeSources = pgTable("knowledge_sources", {
  id: uuid("id").primaryKey().defaultRandom(),
  tenantId: uuid("tenant_id")
    .notNull()
    .references(() => tenants.id, { onDelete: "cascade" }),
  kind: text("kind").$type<SourceKind>().notNull(),
  title: text("title").notNull().default(""),
  startUrl: text("start_url"),
  sitemapUrl: text("sitemap_url"),
  includePatterns: text("include_patterns").array().notNull().default(sql`'{}'::text[]`),
  excludePatterns: text("exclude_patterns").array().notNull().default(sql`'{}'::text[]`),
  pageCap: integer("page_cap").notNull().default(500),
  schedule: text("schedule").$type<SyncSchedule>().notNull().default("off"),
  nextSyncAt: timestamp("next_sync_at", { withTimezone: true }),
  syncState: text("sync_state").$type<SyncState>().notNull().default("idle"),
  runId: uuid("run_id"),
  runStartedAt: timestamp("run_started_at", { withTimezone: true }),
  runQueued: integer("run_queued").notNull().default(0),
  runDone: integer("run_done").notNull().default(0),
  runOverCap: integer("run_over_cap").notNull().default(0),
  robotsTxt: text("robots_txt"),
  lastSyncAt: timestamp("last_sync_at", { withTimezone: true }),
  lastSyncError: text("last_sync_error"),
  nextFetchAt: timestamp("next_fetch_at", { withTimezone: true }).notNull().defaultNow(),
  fileName: text("file_name"),
  contentType: text("content_type"),
  byteSize: integer("byte_size").notNull().default(0),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

export const knowledgePages = pgTable("knowledge_pages", {
  id: uuid("id").primaryKey().defaultRandom(),
  tenantId: uuid("tenant_id")
    .notNull()
    .references(() => tenants.id, { onDelete: "cascade" }),
  sourceId: uuid("source_id")
    .notNull()
    .references(() => knowledgeSources.id, { onDelete: "cascade" }),
  url: text("url").notNull(),
  canonicalUrl: text("canonical_url"),
  title: text("title").notNull().default(""),
  lang: text("lang"),
  status: text("status").$type<PageStatus>().notNull().default("pending"),
  reason: text("reason"),
  httpStatus: integer("http_status"),
  etag: text("etag"),
  lastModified: text("last_modified"),
  contentHash: text("content_hash"),
  byteSize: integer("byte_size").notNull().default(0),
  missingCount: integer("missing_count").notNull().default(0),
  excluded: boolean("excluded").notNull().default(false),
  claimedRun: uuid("claimed_run"),
  doneRun: uuid("done_run"),
  depth: integer("depth").notNull().default(0),
  fetchedAt: timestamp("fetched_at", { withTimezone: true }),
  indexedAt: timestamp("indexed_at", { withTimezone: true }),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

export const knowledgeChunks = pgTable("knowledge_chunks", {
  id: uuid("id").primaryKey().defaultRandom(),
  tenantId: uuid("tenant_id")
    .notNull()
    .references(() => tenants.id, { onDelete: "cascade" }),
  sourceId: uuid("source_id")
    .notNull()
    .references(() => knowledgeSources.id, { onDelete: "cascade" }),
  pageId: uuid("page_id")
    .notNull()
    .references(() => knowledgePages.id, { onDelete: "cascade" }),
  ord: integer("ord").notNull(),
  headingPath: text("heading_path").notNull().default(""),
  text: text("text").notNull(),
  hash: text("hash").notNull(),
  lang: text("lang").notNull().default("en"),
  words: text("words").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

/** A chunk's embedding (drizzle/0030); its code and bucket keys are written by plain SQL (knowledge-vectors). */
export const knowledgeVectors = pgTable("knowledge_vectors", {
  chunkId: uuid("chunk_id")
    .primaryKey()
    .references(() => knowledgeChunks.id, { onDelete: "cascade" }),
  tenantId: uuid("tenant_id")
    .notNull()
    .references(() => tenants.id, { onDelete: "cascade" }),
  model: text("model").notNull(),
  dim: integer("dim").notNull(),
  vector: bytea("vector").notNull(),
  /** The 1024-bit sketch the in-memory Hamming scan compares (drizzle/0039); NULL until coded. */
  sketch: bytea("sketch"),
  /** The next value of knowledge_vectors_seq on every insert and update: the caches load what is newer. */
  seq: bigint("seq", { mode: "number" }).notNull(),
});

export const knowledgeFiles = pgTable("knowledge_files", {
  sourceId: uuid("source_id")
    .primaryKey()
    .references(() => knowledgeSources.id, { onDelete: "cascade" }),
  tenantId: uuid("tenant_id")
    .notNull()
    .references(() => tenants.id, { onDelete: "cascade" }),
  bytes: bytea("bytes").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

export const knowledgeWords = pgTable(
  "knowledge_words",
  {
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    word: text("word").notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.word] })],
);

export const knowledgeAnswers = pgTable("knowledge_answers", {
  id: uuid("id").primaryKey().defaultRandom(),
  tenantId: uuid("tenant_id")
    .notNull()
    .references(() => tenants.id, { onDelete: "cascade" }),
  questions: text("questions").array().notNull(),
  answer: text("answer").notNull(),
  lang: text("lang").notNull().default("en"),
  createdBy: uuid("created_by").references(() => users.id, { onDelete: "set null" }),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});
