-- IF NOT EXISTS: a database used by an earlier build may hold the table the library created itself.
CREATE TABLE IF NOT EXISTS "rate_limits" (
	"key" varchar(255) PRIMARY KEY NOT NULL,
	"points" integer DEFAULT 0 NOT NULL,
	"expire" bigint
);
