-- Sign-ups waiting for their address to be confirmed (issue 44, finding 6). Accounts are created only when the
-- link mailed to the address is opened, so the form's answer is the same for every address. Platform data:
-- the row holds a person's chosen password (as its scrypt hash) before any account or business exists. The
-- link's token is set by the mail job, only for an address without an account, and stored as its SHA-256.
CREATE TABLE IF NOT EXISTS "pending_sign_ups" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"email" text NOT NULL,
	"name" text NOT NULL,
	"password_hash" text NOT NULL,
	"business_name" text,
	"time_zone" text,
	"invitation_id" uuid,
	"token_hash" text,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "pending_sign_ups_business_or_invitation" CHECK (("business_name" IS NULL) <> ("invitation_id" IS NULL))
);
--> statement-breakpoint
ALTER TABLE "pending_sign_ups" ADD CONSTRAINT "pending_sign_ups_invitation_id_invitations_id_fk" FOREIGN KEY ("invitation_id") REFERENCES "public"."invitations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "pending_sign_ups_token_hash_key" ON "pending_sign_ups" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "pending_sign_ups_expires_idx" ON "pending_sign_ups" USING btree ("expires_at");
