"use client";

import { useActionState, useRef } from "react";
import { FormError, SubmitButton } from "@/components/ui";
import type { PlainActionFn } from "@/lib/auth/action";

/**
 * Two steps: "Delete conversation" opens the question, "Yes, delete it" deletes. A native <details> holds
 * the question, so it works before the page's script has loaded. For a viewer the controls are shown
 * disabled (like the other read-only admin forms); the server action refuses a viewer whatever the page allows.
 */
export function DeleteConversationForm({
  id,
  action,
  readOnly = false,
}: {
  id: string;
  action: PlainActionFn;
  readOnly?: boolean;
}) {
  const [state, formAction] = useActionState(action, {});
  const details = useRef<HTMLDetailsElement>(null);
  return (
    <div className="space-y-3 text-sm">
      <p>
        Removes every message and tool trace of this conversation for good, for example when a visitor asks
        for their data to be erased. The audit log records that it was deleted, not what it said.
      </p>
      <FormError state={state} />
      <fieldset disabled={readOnly} className="disabled:opacity-60">
        <legend className="sr-only">Delete this conversation</legend>
        <details ref={details}>
          <summary
            className={`btn btn-danger-secondary cursor-pointer list-none ${readOnly ? "pointer-events-none" : ""}`}
            aria-disabled={readOnly || undefined}
          >
            Delete conversation
          </summary>
          <form action={formAction} className="mt-3 flex flex-wrap items-center gap-2">
            <input type="hidden" name="id" value={id} />
            <p className="font-semibold">Delete this conversation permanently?</p>
            <SubmitButton variant="danger" pendingText="Deleting…">
              Yes, delete it
            </SubmitButton>
            <button
              type="button"
              className="btn btn-secondary"
              onClick={() => {
                if (details.current) details.current.open = false;
              }}
            >
              Cancel
            </button>
          </form>
        </details>
      </fieldset>
    </div>
  );
}
