-- The history a turn reads (michi_open_turn: a conversation's messages newest first, by created_at then id, up
-- to a limit) now has an index in exactly that order, so the planner takes it without statistics. Before, the
-- index stopped at created_at: until autovacuum had analyzed a young messages table, the planner preferred
-- walking messages_tenant_created_idx through every message of the tenant, filtering by conversation (1 ms
-- more per turn at 6,500 messages, growing with them; bench/README.md, issue 17). Same name, same columns plus
-- the id, so transcripts (by created_at) are served as before and inserts maintain one index as before.
DROP INDEX IF EXISTS "messages_tenant_conversation_idx";
--> statement-breakpoint
CREATE INDEX "messages_tenant_conversation_idx" ON "messages" USING btree ("tenant_id","conversation_id","created_at","id");
