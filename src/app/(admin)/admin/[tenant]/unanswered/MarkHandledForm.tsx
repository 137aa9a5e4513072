"use client";

import { useActionState } from "react";
import { FormError, SubmitButton } from "@/components/ui";
import type { PlainActionFn } from "@/lib/auth/action";

/** Marks every question of one group handled; the group leaves the report once the page reloads. */
export function MarkHandledForm({
  questionIds,
  action,
  readOnly,
}: {
  questionIds: string[];
  action: PlainActionFn;
  readOnly: boolean;
}) {
  const [state, formAction] = useActionState(action, {});
  return (
    <form action={formAction} className="flex flex-wrap items-center gap-2">
      {questionIds.map((id) => (
        <input key={id} type="hidden" name="questionIds" value={id} />
      ))}
      <SubmitButton variant="secondary" disabled={readOnly} pendingText="Saving…">
        Mark handled
      </SubmitButton>
      <FormError state={state} />
    </form>
  );
}
