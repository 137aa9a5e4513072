"use client";

import { useState } from "react";
import { formatSetOn, type SecretState, secretClearName } from "@/lib/tools/form-data";

type Props = {
  id: string;
  labelId: string;
  name: string;
  fieldKey: string;
  state: SecretState;
  placeholder?: string;
  required?: boolean;
  readOnly: boolean;
  describedBy?: string;
  invalid: boolean;
  /** The business's time zone, for the day the secret was set. */
  timeZone?: string;
};

/**
 * A write-only input. A stored value is shown as "Set on <date>" with Replace and Clear; the value itself never
 * reaches the browser. An empty input means "keep what is stored".
 */
export function SecretControl(p: Props) {
  const [mode, setMode] = useState<"view" | "replace" | "clear">(p.state.set ? "view" : "replace");

  const input = (
    <input
      id={p.id}
      name={p.name}
      type="password"
      className="input"
      autoComplete="new-password"
      spellCheck={false}
      placeholder={p.placeholder}
      required={(p.required && !p.state.set) || undefined}
      aria-invalid={p.invalid || undefined}
      aria-describedby={p.describedBy}
    />
  );

  if (!p.state.set) return input;

  if (mode === "view") {
    return (
      <fieldset className="flex flex-wrap items-center gap-2" aria-labelledby={p.labelId}>
        <span className="muted text-sm" aria-describedby={p.describedBy}>
          {formatSetOn(p.state.setAt, p.timeZone)}
        </span>
        {!p.readOnly && (
          <>
            <button type="button" className="btn btn-secondary" onClick={() => setMode("replace")}>
              Replace
            </button>
            <button type="button" className="btn btn-secondary" onClick={() => setMode("clear")}>
              Clear
            </button>
          </>
        )}
      </fieldset>
    );
  }

  if (mode === "clear") {
    return (
      <fieldset className="flex flex-wrap items-center gap-2" aria-labelledby={p.labelId}>
        <input type="hidden" name={secretClearName(p.fieldKey)} value="1" />
        <span className="text-sm" role="status">
          Will be removed when you save.
        </span>
        <button type="button" className="btn btn-secondary" onClick={() => setMode("view")}>
          Keep it
        </button>
      </fieldset>
    );
  }

  return (
    <div className="flex flex-wrap items-center gap-2">
      <div className="min-w-0 flex-1">{input}</div>
      <button type="button" className="btn btn-secondary" onClick={() => setMode("view")}>
        Cancel
      </button>
    </div>
  );
}
