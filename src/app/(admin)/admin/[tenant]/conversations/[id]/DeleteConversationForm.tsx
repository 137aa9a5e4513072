"use client";

import { useActionState, useState } from "react";
import { FormError, SubmitButton } from "@/components/ui";
import type { ActionState } from "@/lib/auth/action";

type Bound = (prev: ActionState, fd: FormData) => Promise<ActionState>;

/**
 * Two steps: the first button only asks, the second deletes. For a viewer the controls are shown disabled
 * (like the other read-only admin forms); the server action refuses a viewer whatever the page allows.
 */
export function DeleteConversationForm({
  id,
  action,
  readOnly = false,
}: {
  id: string;
  action: Bound;
  readOnly?: boolean;
}) {
  const [state, formAction] = useActionState(action, {});
  const [asking, setAsking] = useState(false);
  return (
    <div className="space-y-3 text-sm">
      <p>
        Removes every message and tool trace of this conversation for good, for example when a visitor asks
        for their data to be erased. The audit log records that it was deleted, not what it said.
      </p>
      <FormError state={state} />
      <fieldset disabled={readOnly} className="disabled:opacity-60">
        <legend className="sr-only">Delete</legend>
        {asking ? (
          <form action={formAction} className="flex flex-wrap items-center gap-2">
            <input type="hidden" name="id" value={id} />
            <p className="font-semibold">Delete this conversation permanently?</p>
            <SubmitButton variant="danger" pendingText="Deleting…">
              Yes, delete it
            </SubmitButton>
            <button type="button" className="btn btn-secondary" onClick={() => setAsking(false)}>
              Cancel
            </button>
          </form>
        ) : (
          <button type="button" className="btn btn-danger" onClick={() => setAsking(true)}>
            Delete conversation
          </button>
        )}
      </fieldset>
    </div>
  );
}
