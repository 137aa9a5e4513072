ALTER TABLE "messages" ADD COLUMN "usage_estimated" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_monthly" ADD COLUMN "estimated_tokens" bigint DEFAULT 0 NOT NULL;