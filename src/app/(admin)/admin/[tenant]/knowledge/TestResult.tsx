import { MIN_MATCHED } from "@/lib/knowledge/search";
import type { TestQuestionView } from "@/lib/knowledge/views";

/**
 * "Ask a test question": the ranked passages with their scores (also when they fall below the relevance bar,
 * so the business sees why the assistant would say it does not know) and exactly what the model receives.
 */
export function TestResult({ test }: { test: TestQuestionView }) {
  const below = test.passages.length === 0 && test.ranked.length > 0;
  return (
    <div className="mt-4 space-y-3 text-sm" data-testid="test-result">
      {test.curated ? (
        <p>
          <strong>Your answer matches:</strong> {test.curated.answer}
        </p>
      ) : null}
      <p className="muted">
        The best passage holds {Math.round(test.relevance * 100)}% of the question's words; below{" "}
        {Math.round(MIN_MATCHED * 100)}% the assistant is told nothing relevant was found.
      </p>
      {test.passages.length === 0 ? <p>Nothing relevant found.</p> : null}
      {test.ranked.length > 0 ? (
        <ol className={`list-decimal space-y-2 pl-5${below ? " opacity-60" : ""}`}>
          {test.ranked.map((p) => (
            <li key={p.chunkId}>
              {/^https:\/\//.test(p.url) ? (
                <a href={p.url} target="_blank" rel="noreferrer" className="underline">
                  {p.title || p.url}
                </a>
              ) : (
                <span>{p.title} (document)</span>
              )}
              {p.headingPath ? <span className="muted"> · {p.headingPath}</span> : null}
              <span className="muted">
                {" "}
                · score {p.score.toFixed(4)}
                {p.ranks.text ? ` · text #${p.ranks.text}` : ""}
                {p.ranks.vector ? ` · vector #${p.ranks.vector}` : ""}
              </span>
              <div>{p.text.slice(0, 300)}</div>
            </li>
          ))}
        </ol>
      ) : null}
      <p className="muted">
        What the model receives: {test.chars} characters, about {test.tokens} tokens.
      </p>
      <pre className="max-h-80 overflow-auto whitespace-pre-wrap break-words rounded border border-[var(--border)] p-2 text-xs">
        {test.modelSees}
      </pre>
    </div>
  );
}
