"use client";

import { type FormEvent, startTransition, useActionState } from "react";
import type { PlainActionFn } from "@/lib/auth/action";

type Props = {
  packId: string;
  idPrefix: string;
  action: PlainActionFn;
};

/** Runs the pack with its saved settings and shows exactly what the model would receive. */
export function TestPanel({ packId, idPrefix, action }: Props) {
  const [state, formAction, pending] = useActionState(action, {});
  const argsId = `${idPrefix}-test-args`;
  const argsError = state.fieldErrors?.args;
  const d = state.ok ? state.data : undefined;

  function onSubmit(e: FormEvent<HTMLFormElement>) {
    // Submitting by hand keeps what was typed: React resets a form only when it owns the submission.
    e.preventDefault();
    const fd = new FormData(e.currentTarget);
    startTransition(() => formAction(fd));
  }

  return (
    <details className="mt-4 rounded-lg border border-[var(--border)] p-3">
      <summary className="cursor-pointer font-semibold text-sm">Test this tool</summary>
      <form onSubmit={onSubmit} noValidate className="mt-3 space-y-3">
        <input type="hidden" name="packId" value={packId} />
        <div>
          <label htmlFor={argsId} className="label">
            Arguments the model would send (JSON)
          </label>
          <textarea
            id={argsId}
            name="args"
            className="input font-mono"
            rows={2}
            defaultValue="{}"
            spellCheck={false}
            aria-invalid={argsError ? true : undefined}
            aria-describedby={`${argsId}-help${argsError ? ` ${argsId}-error` : ""}`}
          />
          <p id={`${argsId}-help`} className="help">
            Runs with the saved settings (save first). Leave {"{}"} when the tool takes no arguments.
          </p>
          {argsError ? (
            <p id={`${argsId}-error`} className="field-error">
              {argsError}
            </p>
          ) : null}
        </div>
        <button type="submit" className="btn btn-secondary" disabled={pending}>
          {pending ? "Testing…" : "Test"}
        </button>
      </form>
      <div role="status" aria-live="polite" className="mt-3">
        {state.ok === false && !argsError && state.message ? (
          <p className="field-error">{state.message}</p>
        ) : null}
        {d ? (
          <div className="space-y-2" data-testid="test-result">
            <p className="text-sm">
              Chip visitors see:{" "}
              <span className="rounded-full bg-[var(--surface-muted)] px-2 py-0.5">{d.label}</span>
            </p>
            <p className="font-semibold text-sm">What the model sees</p>
            <pre className="max-h-72 overflow-auto whitespace-pre-wrap break-words rounded bg-[var(--surface-muted)] p-2 text-xs">
              {d.result}
            </pre>
            <p className="muted text-sm">
              {Number(d.chars).toLocaleString("en")} characters · about{" "}
              {Number(d.tokens).toLocaleString("en")} tokens · {d.outcome} · {d.durationMs} ms
            </p>
          </div>
        ) : null}
      </div>
    </details>
  );
}
