-- A tool run's token count is no longer taken on the visitor's turn (issue 17: it cost ~4% of a turn's CPU);
-- new rows store null and the transcript and the export count the stored result when they are read.
ALTER TABLE "tool_runs" ALTER COLUMN "result_tokens" DROP NOT NULL;
