-- A person's profile photo (issue #28: the visitor sees the photo of who joined the conversation). A table of
-- its own, not a column of users: the guard reads the whole users row on every admin request, and a photo is
-- up to 256 KB that only the photo routes need. One row per user, gone with the user (ON DELETE cascade).
-- `version` is the first 16 hex digits of the image's SHA-256: the photo URLs carry it, so a new photo is a
-- new URL (a browser never keeps showing the old one) and the same photo stays cached.
CREATE TABLE IF NOT EXISTS "user_avatars" (
	"user_id" uuid PRIMARY KEY NOT NULL REFERENCES "users"("id") ON DELETE cascade,
	"image" bytea NOT NULL,
	"content_type" text NOT NULL,
	"version" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "user_avatars_type_check" CHECK ("content_type" IN ('image/png', 'image/jpeg', 'image/webp')),
	CONSTRAINT "user_avatars_size_check" CHECK (octet_length("image") BETWEEN 1 AND 262144)
);
--> statement-breakpoint
-- No tenant_id (a person belongs to many businesses), so michi_secure_tenant_tables() leaves it alone: its own
-- policy instead. Tenant work (the widget's and the console's photo routes, the live events that name a
-- person) sees only the photos of the current tenant's members; memberships is itself under row-level
-- security, so the check cannot see another tenant's members either. Writes are platform work only (the
-- person's own account page).
ALTER TABLE "user_avatars" ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "user_avatars" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
DROP POLICY IF EXISTS member_photo ON "user_avatars";
--> statement-breakpoint
CREATE POLICY member_photo ON "user_avatars" FOR SELECT TO michi_tenant USING (EXISTS (
  SELECT 1 FROM memberships m WHERE m.user_id = "user_avatars"."user_id" AND m.tenant_id = michi_current_tenant()
));
--> statement-breakpoint
DO $$ BEGIN
  EXECUTE 'DROP POLICY IF EXISTS platform_access ON "user_avatars"';
  EXECUTE format('CREATE POLICY platform_access ON "user_avatars" TO %I USING (true) WITH CHECK (true)', current_user);
END $$;
--> statement-breakpoint
GRANT SELECT ON "user_avatars" TO michi_tenant;
