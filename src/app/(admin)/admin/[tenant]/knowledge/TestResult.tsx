import type { TestQuestionView } from "@/lib/knowledge/views";

/** "search 1 and 2": the searches (numbered as listed) whose results held the passage. */
function foundBy(found: number[] | undefined): string {
  const n = (found ?? []).map((i) => String(i + 1));
  if (n.length === 0) return "none of the searches";
  const list = n.length === 1 ? n[0] : `${n.slice(0, -1).join(", ")} and ${n.at(-1)}`;
  return `search ${list}`;
}

/**
 * "Ask a test question": the passages with their scores and strength (the model is told to answer only from
 * passages that answer, so the business sees what it would judge from) and exactly what the model receives.
 */
export function TestResult({ test }: { test: TestQuestionView }) {
  return (
    <div className="mt-4 space-y-3 text-sm" data-testid="test-result">
      {test.queries.length > 1 ? (
        <div>
          <p>Searched with, all at once:</p>
          <ol className="list-decimal pl-5" aria-label="Searches">
            {test.queries.map((q, i) => (
              <li key={q}>
                “{q}” <span className="muted">{i === 0 ? "(counts fully)" : "(counts half)"}</span>
              </li>
            ))}
          </ol>
        </div>
      ) : null}
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
              {test.queries.length > 1 ? (
                <span data-testid="found-by"> · found by {foundBy(p.foundBy)}</span>
              ) : null}
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
