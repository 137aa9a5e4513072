import { Card } from "@/components/ui";
import type { TestQuestionView } from "@/lib/knowledge/views";
import { TestResult } from "./TestResult";

type TestError = { field: "ask" | "also"; message: string };

/**
 * "Ask a test question": a plain GET form, so the question and its other wordings stay in the address and
 * survive a reload. The wordings are the other queries the assistant may send with its first (up to three in
 * one search), so the owner sees what a visitor writing in another language would get.
 */
export function TestQuestionCard({
  q,
  ask,
  also,
  test,
  error,
}: {
  q: string;
  ask: string;
  also: string[];
  test?: TestQuestionView | null;
  error?: TestError;
}) {
  const invalid = (field: TestError["field"]) =>
    error?.field === field ? { "aria-invalid": true, "aria-describedby": "test-error" } : {};
  return (
    <Card
      id="test"
      title="Ask a test question"
      description="The passages the assistant would get, ranked, and exactly what it would receive."
    >
      <form method="get" className="space-y-2">
        <input type="hidden" name="q" value={q} />
        <div className="flex gap-2">
          <label htmlFor="ask" className="sr-only">
            Test question
          </label>
          <input
            id="ask"
            name="ask"
            className="input flex-1"
            defaultValue={ask}
            placeholder="Do you have parking?"
            {...invalid("ask")}
          />
          <button type="submit" className="btn">
            Ask
          </button>
        </div>
        <fieldset className="space-y-1" aria-describedby="also-help">
          <legend className="text-sm">Other wordings (optional)</legend>
          <p id="also-help" className="help">
            The assistant searches with up to three wordings at once: the first in your pages' language, which
            counts most, then the visitor's own words or another phrasing, which count half. Ask above in your
            pages' language and add a visitor's words here to see what they would get.
          </p>
          {[0, 1].map((i) => (
            <div key={i}>
              <label htmlFor={`also-${i + 1}`} className="sr-only">
                Other wording {i + 1}
              </label>
              <input
                id={`also-${i + 1}`}
                name="also"
                className="input w-full"
                defaultValue={also[i] ?? ""}
                placeholder={i === 0 ? "¿Tienen aparcamiento?" : ""}
                {...invalid("also")}
              />
            </div>
          ))}
        </fieldset>
        {error ? (
          <p id="test-error" role="alert" className="field-error">
            {error.message}
          </p>
        ) : null}
      </form>
      {test ? <TestResult test={test} /> : null}
    </Card>
  );
}
