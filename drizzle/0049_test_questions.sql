-- Test questions and their runs (issue 42): the business's own questions, each with what a right answer must
-- do, re-run on demand and after every change that could change an answer. A run is a row that moves from
-- pending (waiting out the debounce after a change) to running to done; the two partial unique indexes are
-- what keeps one business to one waiting and one running run, across instances. A run's results are one row
-- per question, written as each question is answered, so a run resumed after a restart skips the answered
-- ones; the runner holds a lease it renews per question, and a running run whose lease ran out (its process
-- died) is handed to a new job by the sweep. Row-level security comes from michi_secure_tenant_tables() (drizzle/0001), as for every table with a
-- tenant_id.
CREATE TABLE IF NOT EXISTS "test_questions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL REFERENCES "tenants"("id") ON DELETE cascade,
	"question" text NOT NULL,
	"expect" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"origin" text DEFAULT 'manual' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "test_questions_origin" CHECK ("origin" IN ('manual', 'answers', 'unanswered', 'rated_down', 'site', 'csv'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "test_questions_tenant_question" ON "test_questions" ("tenant_id", lower("question"));
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "test_runs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL REFERENCES "tenants"("id") ON DELETE cascade,
	"status" text DEFAULT 'pending' NOT NULL,
	"triggers" text[] DEFAULT '{}'::text[] NOT NULL,
	"mode" text,
	"start_after" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"total" integer DEFAULT 0 NOT NULL,
	"passed" integer DEFAULT 0 NOT NULL,
	"failed" integer DEFAULT 0 NOT NULL,
	"changed" integer DEFAULT 0 NOT NULL,
	"now_failing" integer DEFAULT 0 NOT NULL,
	"tokens" integer DEFAULT 0 NOT NULL,
	"token_cap" integer DEFAULT 0 NOT NULL,
	"capped" boolean DEFAULT false NOT NULL,
	"error" text,
	"lease_until" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "test_runs_status" CHECK ("status" IN ('pending', 'running', 'done', 'failed')),
	CONSTRAINT "test_runs_mode" CHECK ("mode" IS NULL OR "mode" IN ('model', 'retrieval'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "test_runs_one_pending" ON "test_runs" ("tenant_id") WHERE "status" = 'pending';
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "test_runs_one_running" ON "test_runs" ("tenant_id") WHERE "status" = 'running';
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "test_runs_tenant_created_idx" ON "test_runs" ("tenant_id", "created_at");
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "test_results" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL REFERENCES "tenants"("id") ON DELETE cascade,
	"run_id" uuid NOT NULL REFERENCES "test_runs"("id") ON DELETE cascade,
	"question_id" uuid REFERENCES "test_questions"("id") ON DELETE set null,
	"question" text NOT NULL,
	"pass" boolean NOT NULL,
	"reasons" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"answer" text DEFAULT '' NOT NULL,
	"citations" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"packs" text[] DEFAULT '{}'::text[] NOT NULL,
	"changes" text[] DEFAULT '{}'::text[] NOT NULL,
	"was_pass" boolean,
	"tokens" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "test_results_run_question" ON "test_results" ("run_id", "question_id");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "test_results_question_idx" ON "test_results" ("tenant_id", "question_id", "created_at");
