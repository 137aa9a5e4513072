import type { AnswerRating } from "@/lib/feedback/types";

/** The visitor's thumbs under an answer of the transcript, with their comment on a "down". */
export function RatingNote({ rating }: { rating: AnswerRating | undefined }) {
  if (!rating) return null;
  const up = rating.rating === "up";
  return (
    <p
      className={`mt-2 text-xs font-medium ${up ? "text-green-800 dark:text-green-300" : "text-danger-700 dark:text-red-300"}`}
    >
      <span aria-hidden="true">{up ? "👍 " : "👎 "}</span>
      Visitor rated this answer {up ? "helpful" : "not helpful"}
      {rating.comment ? `: “${rating.comment}”` : "."}
    </p>
  );
}
