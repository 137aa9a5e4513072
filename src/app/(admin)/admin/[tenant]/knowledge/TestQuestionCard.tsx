import { Card } from "@/components/ui";
import type { TestQuestionView } from "@/lib/knowledge/views";
import { TestResult } from "./TestResult";

/** "Ask a test question": a plain GET form, so the question stays in the address and survives a reload. */
export function TestQuestionCard({
  q,
  ask,
  test,
}: {
  q: string;
  ask: string;
  test: TestQuestionView | null;
}) {
  return (
    <Card
      id="test"
      title="Ask a test question"
      description="The passages the assistant would get, ranked, and exactly what it would receive."
    >
      <form method="get" className="flex gap-2">
        <input type="hidden" name="q" value={q} />
        <label htmlFor="ask" className="sr-only">
          Test question
        </label>
        <input
          id="ask"
          name="ask"
          className="input flex-1"
          defaultValue={ask}
          placeholder="Do you have parking?"
        />
        <button type="submit" className="btn">
          Ask
        </button>
      </form>
      {test ? <TestResult test={test} /> : null}
    </Card>
  );
}
