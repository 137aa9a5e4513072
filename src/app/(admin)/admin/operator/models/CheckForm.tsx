"use client";

import { useActionState } from "react";
import { FormMessage, SubmitButton } from "@/components/ui";
import type { ActionState } from "@/lib/auth/action";

type Action = (prev: ActionState, fd: FormData) => Promise<ActionState>;

export function CheckModelForm({ action }: { action: Action }) {
  const [state, formAction] = useActionState(action, {});
  return (
    <form action={formAction} className="space-y-4">
      <SubmitButton pendingText="Checking…">Check model</SubmitButton>
      <FormMessage state={state} />
      {state.data?.report ? (
        <pre className="card overflow-x-auto whitespace-pre-wrap text-sm">{state.data.report}</pre>
      ) : null}
    </form>
  );
}
