"use client";

import { useActionState } from "react";
import { FormMessage, InputField, SubmitButton } from "@/components/ui";
import type { PlainActionFn } from "@/lib/auth/action";

/** One button posting fixed hidden fields (Re-sync now, exclude a page, delete an answer). */
export function ActionButton({
  action,
  fields,
  label,
  pendingText,
  ariaLabel,
  variant,
}: {
  action: PlainActionFn;
  fields: Record<string, string>;
  label: string;
  pendingText: string;
  ariaLabel?: string;
  variant?: "secondary" | "danger";
}) {
  const [state, formAction] = useActionState(action, {});
  return (
    <form action={formAction} className="space-y-1">
      {Object.entries(fields).map(([k, v]) => (
        <input key={k} type="hidden" name={k} value={v} />
      ))}
      <SubmitButton variant={variant ?? "secondary"} pendingText={pendingText} aria-label={ariaLabel}>
        {label}
      </SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}

export function AddAnswerForm({ action }: { action: PlainActionFn }) {
  const [state, formAction] = useActionState(action, {});
  const v = state.values ?? {};
  return (
    <form action={formAction} className="space-y-3" noValidate>
      <FormMessage state={state} />
      <div>
        <label htmlFor="answer-questions" className="label">
          Questions (one per line)
        </label>
        <textarea
          id="answer-questions"
          name="questions"
          rows={3}
          className="input w-full"
          defaultValue={v.questions ?? ""}
          aria-invalid={state.fieldErrors?.questions ? true : undefined}
        />
        {state.fieldErrors?.questions ? <p className="field-error">{state.fieldErrors.questions}</p> : null}
      </div>
      <div>
        <label htmlFor="answer-text" className="label">
          Answer
        </label>
        <textarea
          id="answer-text"
          name="answer"
          rows={4}
          className="input w-full"
          defaultValue={v.answer ?? ""}
          aria-invalid={state.fieldErrors?.answer ? true : undefined}
        />
        {state.fieldErrors?.answer ? <p className="field-error">{state.fieldErrors.answer}</p> : null}
      </div>
      <InputField
        id="answer-lang"
        name="lang"
        label="Language (en, es, fr, de, ja)"
        defaultValue={v.lang ?? "en"}
      />
      <SubmitButton pendingText="Saving…">Save answer</SubmitButton>
    </form>
  );
}
