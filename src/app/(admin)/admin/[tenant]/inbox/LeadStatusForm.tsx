"use client";

import { useActionState } from "react";
import { FormError, SubmitButton } from "@/components/ui";
import type { PlainActionFn } from "@/lib/auth/action";

/** One button: "Mark handled" for a new request, "Mark as new" for a handled one. */
export function LeadStatusForm({
  id,
  handled,
  action,
  readOnly,
}: {
  id: string;
  handled: boolean;
  action: PlainActionFn;
  readOnly: boolean;
}) {
  const [state, formAction] = useActionState(action, {});
  return (
    <form action={formAction} className="flex flex-wrap items-center gap-2">
      <input type="hidden" name="id" value={id} />
      <input type="hidden" name="status" value={handled ? "new" : "handled"} />
      <SubmitButton variant={handled ? "secondary" : undefined} disabled={readOnly} pendingText="Saving…">
        {handled ? "Mark as new" : "Mark handled"}
      </SubmitButton>
      <FormError state={state} />
    </form>
  );
}
