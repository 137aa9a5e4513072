"use client";

import { useActionState } from "react";
import { FormError, InputField, SubmitButton } from "@/components/ui";
import type { PlainActionFn } from "@/lib/auth/action";

/**
 * Erasing cannot be undone, so the owner types the visitor's e-mail, number, id or link a second time; the
 * server compares it again whatever the page allowed.
 */
export function EraseVisitorForm({
  by,
  value,
  action,
}: {
  by: string;
  value: string;
  action: PlainActionFn;
}) {
  const [state, formAction] = useActionState(action, {});
  return (
    <form action={formAction} className="space-y-3 text-sm">
      <p>
        Deletes everything listed above for good, in one step, and sends your webhooks a{" "}
        <code>visitor.erased</code> event with no personal data in it. The visitor's chat window starts
        afresh. The audit log records that you erased a visitor's data and how much, not whose or what it
        said.
      </p>
      <FormError state={state} />
      <input type="hidden" name="by" value={by} />
      <input type="hidden" name="value" value={value} />
      <InputField
        id="erase-confirm"
        label="Type it again to confirm"
        name="confirm"
        autoComplete="off"
        maxLength={500}
        required
        error={state.fieldErrors?.confirm}
      />
      <SubmitButton variant="danger" pendingText="Erasing…">
        Erase this visitor's data
      </SubmitButton>
    </form>
  );
}
