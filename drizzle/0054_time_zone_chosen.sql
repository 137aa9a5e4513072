-- Whether a business's time zone was ever chosen (issue 45 item 3). Sign-up takes the browser's zone and Data
-- & retention saves one; a business the operator created starts in UTC with none chosen, and its admins are
-- offered their browser's zone until one is (kept or changed). A zone other than UTC was chosen by someone.
ALTER TABLE "tenants" ADD COLUMN IF NOT EXISTS "time_zone_chosen_at" timestamp with time zone;
--> statement-breakpoint
UPDATE "tenants" SET "time_zone_chosen_at" = "updated_at" WHERE "time_zone" <> 'UTC' AND "time_zone_chosen_at" IS NULL;
