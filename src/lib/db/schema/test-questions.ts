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
import type { Citation } from "../../../shared/citations";
import { tenants } from "./core";

// Test questions and their runs (drizzle/0049_test_questions.sql, issue 42).

/** What a right answer must do, in the owner's words; every field is optional and all given ones must hold. */
export type TestExpect = {
  /** The answer cites this indexed page (its address). */
  citeUrl?: string;
  /** The answer uses this pack (its id). */
  pack?: string;
  /** Words or figures the answer contains, each of them (case- and accent-blind). */
  mustContain?: string[];
  /** Words or figures the answer never contains. */
  mustNotContain?: string[];
  /** The answer says it does not know, or offers a person. */
  sayUnknown?: boolean;
  /** The answer states no figure its own sources do not state (the figure check). */
  noUnsupportedFigures?: boolean;
};

export type TestQuestionOrigin = "manual" | "answers" | "unanswered" | "rated_down" | "site" | "csv";
export type TestRunStatus = "pending" | "running" | "done" | "failed";
export type TestRunMode = "model" | "retrieval";
/** Why a run started: the owner's Run now, or a change that could change answers. */
export type TestRunTrigger = "manual" | "knowledge" | "bot" | "packs" | "model";
/** What changed in one answer since the question's previous run. */
export type TestChange = "answer" | "citations" | "verdict";

export const testQuestions = pgTable(
  "test_questions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    question: text("question").notNull(),
    expect: jsonb("expect").$type<TestExpect>().notNull().default({}),
    origin: text("origin").$type<TestQuestionOrigin>().notNull().default("manual"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("test_questions_tenant_question").on(t.tenantId, sql`lower(${t.question})`)],
);

export const testRuns = pgTable(
  "test_runs",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    status: text("status").$type<TestRunStatus>().notNull().default("pending"),
    triggers: text("triggers").array().$type<TestRunTrigger[]>().notNull().default(sql`'{}'::text[]`),
    mode: text("mode").$type<TestRunMode>(),
    startAfter: timestamp("start_after", { withTimezone: true }).notNull().defaultNow(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    startedAt: timestamp("started_at", { withTimezone: true }),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
    total: integer("total").notNull().default(0),
    passed: integer("passed").notNull().default(0),
    failed: integer("failed").notNull().default(0),
    changed: integer("changed").notNull().default(0),
    nowFailing: integer("now_failing").notNull().default(0),
    /** Model tokens this run spent: counted here, never in the month's visitor usage. */
    tokens: integer("tokens").notNull().default(0),
    tokenCap: integer("token_cap").notNull().default(0),
    /** The run stopped asking the model at its token cap; the remaining questions were not run. */
    capped: boolean("capped").notNull().default(false),
    error: text("error"),
    /** The runner answering it holds it until then, renewed per question; a lapsed lease is picked up again. */
    leaseUntil: timestamp("lease_until", { withTimezone: true }),
    /** Jobs that took the run: a run that keeps dying is ended as failed instead of tried for ever. */
    attempts: integer("attempts").notNull().default(0),
  },
  (t) => [
    uniqueIndex("test_runs_one_pending").on(t.tenantId).where(sql`${t.status} = 'pending'`),
    uniqueIndex("test_runs_one_running").on(t.tenantId).where(sql`${t.status} = 'running'`),
    index("test_runs_tenant_created_idx").on(t.tenantId, t.createdAt),
  ],
);

export const testResults = pgTable(
  "test_results",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    runId: uuid("run_id")
      .notNull()
      .references(() => testRuns.id, { onDelete: "cascade" }),
    questionId: uuid("question_id").references(() => testQuestions.id, { onDelete: "set null" }),
    question: text("question").notNull(),
    pass: boolean("pass").notNull(),
    /** Why it failed (or what was checked), in words an owner reads. */
    reasons: jsonb("reasons").$type<string[]>().notNull().default([]),
    answer: text("answer").notNull().default(""),
    citations: jsonb("citations").$type<Citation[]>().notNull().default([]),
    packs: text("packs").array().notNull().default(sql`'{}'::text[]`),
    changes: text("changes").array().$type<TestChange[]>().notNull().default(sql`'{}'::text[]`),
    /** The question's verdict in the previous run that answered it; null: first run. */
    wasPass: boolean("was_pass"),
    tokens: integer("tokens").notNull().default(0),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("test_results_run_question").on(t.runId, t.questionId),
    index("test_results_question_idx").on(t.tenantId, t.questionId, t.createdAt),
  ],
);
