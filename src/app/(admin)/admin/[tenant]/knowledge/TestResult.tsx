import type { TestQuestionView } from "@/lib/knowledge/views";

/**
 * "Ask a test question": the passages with their scores and strength (the model is told to answer only from
 * passages that answer, so the business sees what it would judge from) and exactly what the model receives.
 */
export function TestResult({ test }: { test: TestQuestionView }) {
  return (
    <div className="mt-4 space-y-3 text-sm" data-testid="test-result">
      {test.curated ? (
        <p>
          <strong>Your answer matches:</strong> {test.curated.answer}
        </p>
      ) : null}
      {test.passages.length === 0 ? (
        <p>No word of the question is on your pages.</p>
      ) : (
        <p className="muted">
          The best passage holds {Math.round(test.relevance * 100)}% of the question's words. The assistant
          answers only from passages that answer the question, and otherwise says it does not know.
        </p>
      )}
      {test.ranked.length > 0 ? (
        <ol className="list-decimal space-y-2 pl-5">
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
                · {p.strength} · score {p.score.toFixed(4)}
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
