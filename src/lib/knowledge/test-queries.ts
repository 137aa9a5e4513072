import "server-only";
import { AppError } from "@/lib/errors";

// The Knowledge page's test question as the searches the pack runs. The assistant sends search_knowledge one
// to three queries at once (the first in the pages' language, counted fully; the others, often the visitor's
// own words, counted half) and the pack fuses their results; the owner's question is the first query and up
// to two more wordings follow it, so the page shows what such a call returns. Bad input is refused in words
// the owner can act on, never cut or dropped without saying so.

/** The pack's own bounds (src/lib/tools/packs/search-knowledge.ts): three queries of 200 characters. */
export const TEST_QUERY_MAX = 200;
export const TEST_EXTRA_QUERIES = 2;

export type TestQuestionInput = { question: string; also?: readonly string[] };

const fail = (field: string, message: string) =>
  new AppError("invalid_input", message, { fieldErrors: { [field]: [message] } });

/** The queries to run, the question first; throws invalid_input with the field it is about. */
export function testQueries(input: TestQuestionInput): string[] {
  const question = input.question.trim();
  const also = (input.also ?? []).map((q) => q.trim()).filter(Boolean);
  if (!question && also.length > 0) {
    throw fail("ask", "Write the test question first; the other wordings are searched beside it.");
  }
  if (question.length > TEST_QUERY_MAX) {
    throw fail(
      "ask",
      `The test question can be at most ${TEST_QUERY_MAX} characters, as the assistant's searches are; it has ${question.length}.`,
    );
  }
  if (also.length > TEST_EXTRA_QUERIES) {
    throw fail(
      "also",
      `At most ${TEST_EXTRA_QUERIES} other wordings: the assistant searches with three at once.`,
    );
  }
  const queries = [question];
  for (const [i, q] of also.entries()) {
    if (q.length > TEST_QUERY_MAX) {
      throw fail(
        "also",
        `Wording ${i + 2} can be at most ${TEST_QUERY_MAX} characters, as the assistant's searches are; it has ${q.length}.`,
      );
    }
    const same = queries.findIndex((earlier) => earlier.toLowerCase() === q.toLowerCase());
    if (same >= 0) {
      throw fail(
        "also",
        `Wording ${i + 2} is the same as ${same === 0 ? "the question" : `wording ${same + 1}`}: write it differently or leave it empty.`,
      );
    }
    queries.push(q);
  }
  return queries;
}
