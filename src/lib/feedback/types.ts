import "server-only";

// The rating shapes the admin pages render, named here so components never reach into src/lib/db.

export type { AnswerRating, Satisfaction } from "../db/queries/feedback";
