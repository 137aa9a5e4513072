-- Whether the business was told about a contact request by mail: 'none' (nobody to tell, or a hand-off offer
-- without details), 'sent', or 'failed' (the Inbox shows it, with the mail server's reason, while the durable
-- queue tries again). A failure used to show only in the server log.
ALTER TABLE "leads" ADD COLUMN "mail_status" text DEFAULT 'none' NOT NULL;
--> statement-breakpoint
ALTER TABLE "leads" ADD COLUMN "mail_error" text DEFAULT '' NOT NULL;
