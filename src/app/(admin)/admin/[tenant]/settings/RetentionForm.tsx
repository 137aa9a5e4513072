"use client";

import { useActionState } from "react";
import { FormMessage, InputField, SubmitButton } from "@/components/ui";
import type { PlainActionFn } from "@/lib/auth/action";

export function RetentionForm({
  action,
  days,
  min,
  max,
}: {
  action: PlainActionFn;
  days: number;
  min: number;
  max: number;
}) {
  const [state, formAction] = useActionState(action, {});
  return (
    <form action={formAction} className="space-y-3" noValidate>
      <FormMessage state={state} />
      <InputField
        id="retention-days"
        name="retentionDays"
        type="number"
        inputMode="numeric"
        min={min}
        max={max}
        step={1}
        required
        label="Keep conversations for (days)"
        help="Conversations with no activity for longer are deleted with their messages and tool traces. The audit log is kept."
        defaultValue={state.values?.retentionDays ?? String(days)}
        error={state.fieldErrors?.retentionDays}
        className="max-w-xs"
      />
      <SubmitButton pendingText="Saving…">Save</SubmitButton>
    </form>
  );
}
