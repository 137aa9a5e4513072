"use client";

import { useActionState } from "react";
import { FormMessage, InputField, SubmitButton } from "@/components/ui";
import type { PlainActionFn } from "@/lib/auth/action";

/** Contact requests and internal notes: each kept for its own number of days, or (empty) until deleted. */
export function KindRetentionForm({
  action,
  leadDays,
  noteDays,
  min,
  max,
}: {
  action: PlainActionFn;
  leadDays: number | null;
  noteDays: number | null;
  min: number;
  max: number;
}) {
  const [state, formAction] = useActionState(action, {});
  const field = (name: "leadRetentionDays" | "noteRetentionDays", value: number | null) =>
    state.values?.[name] ?? (value === null ? "" : String(value));
  return (
    <form action={formAction} className="space-y-3" noValidate>
      <FormMessage state={state} />
      <InputField
        id="lead-retention-days"
        name="leadRetentionDays"
        type="number"
        inputMode="numeric"
        min={min}
        max={max}
        step={1}
        label="Keep contact requests for (days)"
        help="Requests in the Inbox older than this are deleted. Empty: kept until you delete them."
        defaultValue={field("leadRetentionDays", leadDays)}
        error={state.fieldErrors?.leadRetentionDays}
        className="max-w-xs"
      />
      <InputField
        id="note-retention-days"
        name="noteRetentionDays"
        type="number"
        inputMode="numeric"
        min={min}
        max={max}
        step={1}
        label="Keep internal notes for (days)"
        help="Your team's notes on live conversations older than this are deleted. Empty: kept as long as the conversation."
        defaultValue={field("noteRetentionDays", noteDays)}
        error={state.fieldErrors?.noteRetentionDays}
        className="max-w-xs"
      />
      <SubmitButton pendingText="Saving…">Save request and note retention</SubmitButton>
    </form>
  );
}
