import type { ToolRunRow } from "@/lib/insights/types";
import { findPack } from "@/lib/tools/index";
import { estimateTokens } from "@/lib/tools/tokens";
import { formatNumber } from "../display";

// One tool run as a collapsible trace. The result is shown exactly as stored: the projected, capped text the
// model received, not the pack's raw upstream payload (which is never stored).

const OUTCOME_TEXT: Record<ToolRunRow["outcome"], string> = {
  ok: "ok",
  error: "error",
  invalid_args: "invalid arguments",
  timeout: "timed out",
  unknown_tool: "unknown tool",
};

function pretty(value: unknown): string {
  if (value === null || value === undefined) return "(none)";
  return JSON.stringify(value, null, 2);
}

export function ToolTrace({ run }: { run: ToolRunRow }) {
  const pack = findPack(run.packId);
  const failed = run.outcome !== "ok";
  return (
    <details className="mx-4 rounded-lg border border-dashed border-[var(--border)] bg-[var(--surface)] px-3 py-2 text-sm">
      <summary className="cursor-pointer select-none">
        <span className="font-semibold">Tool: {pack?.label ?? run.packId}</span>{" "}
        <span className="muted">
          ({run.packId}) · {formatNumber(run.durationMs)} ms ·{" "}
        </span>
        <span
          className={
            failed ? "font-semibold text-danger-700 dark:text-red-300" : "text-green-800 dark:text-green-300"
          }
        >
          {OUTCOME_TEXT[run.outcome]}
        </span>
      </summary>
      <dl className="mt-2 grid gap-x-4 gap-y-2 sm:grid-cols-[auto_1fr]">
        <dt className="muted">Pack</dt>
        <dd>
          <code>{run.packId}</code>
        </dd>
        <dt className="muted">Chip label</dt>
        <dd>{pack?.label ?? "(pack no longer installed)"}</dd>
        <dt className="muted">Arguments</dt>
        <dd>
          <pre className="overflow-x-auto rounded bg-[var(--surface-muted)] p-2 text-xs">
            {pretty(run.args)}
          </pre>
        </dd>
        <dt className="muted">Result the model saw</dt>
        <dd>
          <pre className="max-h-80 overflow-auto whitespace-pre-wrap break-all rounded bg-[var(--surface-muted)] p-2 text-xs">
            {run.result}
          </pre>
        </dd>
        <dt className="muted">Size</dt>
        <dd>
          {formatNumber(run.resultChars)} characters,{" "}
          {formatNumber(run.resultTokens ?? estimateTokens(run.result))} tokens
        </dd>
        <dt className="muted">Duration</dt>
        <dd>{formatNumber(run.durationMs)} ms</dd>
        <dt className="muted">Outcome</dt>
        <dd>{OUTCOME_TEXT[run.outcome]}</dd>
      </dl>
    </details>
  );
}
