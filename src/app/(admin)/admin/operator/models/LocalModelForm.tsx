"use client";

import { useActionState } from "react";
import { FormMessage, SubmitButton } from "@/components/ui";
import type { ActionState } from "@/lib/auth/action";

type Action = (prev: ActionState, fd: FormData) => Promise<ActionState>;

/** One local model server found on this machine, and the button that puts it to use. */
export function LocalModelForm({
  action,
  server,
}: {
  action: Action;
  server: { preset: string; name: string; baseURL: string; models: string[] };
}) {
  const [state, formAction] = useActionState(action, {});
  return (
    <form action={formAction} className="space-y-2">
      <input type="hidden" name="preset" value={server.preset} />
      <p className="text-sm">
        <strong>{server.name}</strong> at <code>{server.baseURL}</code> with{" "}
        {server.models.map((m, i) => (
          <span key={m}>
            {i > 0 ? ", " : ""}
            <code>{m}</code>
          </span>
        ))}
        .
      </p>
      <SubmitButton pendingText="Switching on…">Use {server.name}</SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}
