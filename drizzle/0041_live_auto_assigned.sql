-- Issue 28: a waiting visitor the round-robin gave to an agent who then left (closed the console past the
-- presence window, set themselves away, lost the admin role) would otherwise wait for that agent alone. The
-- flag says the assignment was the round-robin's, so the next round of it may give the visitor to someone
-- online; a teammate's choice (assign, transfer) or a claim clears it and stays as it was chosen.
ALTER TABLE "conversations" ADD COLUMN IF NOT EXISTS "live_auto_assigned" boolean DEFAULT false NOT NULL;
