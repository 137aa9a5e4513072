"use client";

import { type FormEvent, startTransition, useActionState } from "react";
import type { PlainActionFn } from "@/lib/auth/action";
import { type ArgField, argName } from "@/lib/tools/arg-form";

type Props = {
  packId: string;
  idPrefix: string;
  /** Generated from the pack's `definition.function.parameters` (src/lib/tools/arg-form.ts). */
  fields: ArgField[];
  /** The pack's example arguments, as the inputs' starting values. */
  example: Record<string, string>;
  action: PlainActionFn;
};

function ArgInput({
  f,
  id,
  value,
  described,
  invalid,
}: {
  f: ArgField;
  id: string;
  value: string;
  described?: string;
  invalid: boolean;
}) {
  const common = {
    id,
    name: argName(f.key),
    "aria-invalid": invalid || undefined,
    "aria-describedby": described,
    "aria-required": f.required || undefined,
  };
  if (f.kind === "choice" || f.kind === "boolean") {
    const options = f.kind === "boolean" ? ["true", "false"] : f.options;
    const words = (o: string) => (f.kind === "boolean" ? (o === "true" ? "Yes" : "No") : o);
    return (
      <select {...common} className="input" defaultValue={value}>
        {/* Optional arguments may be left out, which is different from any listed value. */}
        {!f.required || value === "" ? (
          <option value="">{f.required ? "Choose…" : "(leave out)"}</option>
        ) : null}
        {options.map((o) => (
          <option key={o} value={o}>
            {words(o)}
          </option>
        ))}
      </select>
    );
  }
  return (
    <input
      {...common}
      type="text"
      inputMode={f.kind === "integer" ? "numeric" : f.kind === "number" ? "decimal" : undefined}
      className="input"
      defaultValue={value}
      autoComplete="off"
    />
  );
}

/** Runs the pack with its saved settings and shows exactly what the model would receive. */
export function TestPanel({ packId, idPrefix, fields, example, action }: Props) {
  const [state, formAction, pending] = useActionState(action, {});
  const d = state.ok ? state.data : undefined;
  const errors = state.ok === false ? (state.fieldErrors ?? {}) : {};
  const headingId = `${idPrefix}-test-title`;

  function onSubmit(e: FormEvent<HTMLFormElement>) {
    // Submitting by hand keeps what was typed: React resets a form only when it owns the submission.
    e.preventDefault();
    const fd = new FormData(e.currentTarget);
    startTransition(() => formAction(fd));
  }

  return (
    <section className="card" aria-labelledby={headingId} data-testid="test-panel">
      <h2 id={headingId} className="font-semibold text-lg">
        Test this tool
      </h2>
      <p className="help">
        Runs with the saved settings (save first) and shows what the model would receive.
        {fields.length > 0
          ? " The values below are what the model would ask with; change them to try others."
          : ""}
      </p>
      <form onSubmit={onSubmit} noValidate className="mt-3 space-y-3">
        <input type="hidden" name="packId" value={packId} />
        {fields.length === 0 ? (
          <p className="text-sm">
            This tool takes no questions from the model: it always reads the same data.
          </p>
        ) : (
          fields.map((f) => {
            const id = `${idPrefix}-arg-${f.key}`;
            const error = errors[argName(f.key)];
            const described =
              [f.description ? `${id}-help` : null, error ? `${id}-error` : null].filter(Boolean).join(" ") ||
              undefined;
            return (
              <div key={f.key} data-arg={f.key}>
                <label htmlFor={id} className="label">
                  {f.label}
                  <span className="muted font-normal">{f.required ? " (required)" : " (optional)"}</span>
                </label>
                <ArgInput
                  f={f}
                  id={id}
                  value={example[f.key] ?? ""}
                  described={described}
                  invalid={!!error}
                />
                {f.description ? (
                  <p id={`${id}-help`} className="help">
                    {f.description}
                  </p>
                ) : null}
                {error ? (
                  <p id={`${id}-error`} className="field-error">
                    {error}
                  </p>
                ) : null}
              </div>
            );
          })
        )}
        <button type="submit" className="btn btn-secondary" disabled={pending}>
          {pending ? "Testing…" : "Test"}
        </button>
      </form>
      <div role="status" aria-live="polite" className="mt-3">
        {state.ok === false && state.message ? <p className="field-error">{state.message}</p> : null}
        {d ? (
          <div className="space-y-2" data-testid="test-result">
            <p className="text-sm">
              Chip visitors see: <span className="badge">{d.label}</span>
            </p>
            <p className="font-semibold text-sm">What the model sees</p>
            <pre className="max-h-72 overflow-auto whitespace-pre-wrap break-words rounded bg-[var(--surface-muted)] p-2 text-xs">
              {d.result}
            </pre>
            <p className="muted text-sm">
              {Number(d.chars).toLocaleString("en")} characters · about{" "}
              {Number(d.tokens).toLocaleString("en")} tokens · {d.outcome === "ok" ? "worked" : d.outcome} ·{" "}
              {d.durationMs} ms
            </p>
          </div>
        ) : null}
      </div>
    </section>
  );
}
