"use client";

import { useActionState } from "react";
import { FormMessage, SubmitButton } from "@/components/ui";
import type { PlainActionFn } from "@/lib/auth/action";

// The verified-visitor controls of the Site & embed page. The identity secret is shown exactly once, in the
// answer of the action that made it (as the Webhooks page shows its signing secret); the page itself only
// ever knows whether one exists.

/** Create or replace the identity secret; the new one is shown once under the button. */
export function RotateSecretForm({ action, exists }: { action: PlainActionFn; exists: boolean }) {
  const [state, formAction] = useActionState(action, {});
  const secret = typeof state.data?.secret === "string" ? state.data.secret : undefined;
  return (
    <form action={formAction} className="space-y-2">
      <SubmitButton variant={exists ? "secondary" : undefined} pendingText="Creating…">
        {exists ? "Replace identity secret" : "Create identity secret"}
      </SubmitButton>
      {secret ? (
        <div className="rounded-lg border border-[var(--border)] p-3">
          <p className="text-sm">
            Identity secret (copy it to your server now; it is not shown again). Tokens signed with an earlier
            one are refused from now on.
          </p>
          <output className="mt-1 block select-all break-all font-mono text-sm" aria-label="Identity secret">
            {secret}
          </output>
        </div>
      ) : null}
      <FormMessage state={state} />
    </form>
  );
}

/** One button posting fixed values (remove the secret, flip the switch), with its outcome beside it. */
export function PlainButton({
  action,
  values,
  label,
  pendingText,
  variant,
}: {
  action: PlainActionFn;
  values?: Record<string, string>;
  label: string;
  pendingText: string;
  variant?: "secondary" | "danger";
}) {
  const [state, formAction] = useActionState(action, {});
  return (
    <form action={formAction} className="space-y-2">
      {Object.entries(values ?? {}).map(([k, v]) => (
        <input key={k} type="hidden" name={k} value={v} />
      ))}
      <SubmitButton variant={variant ?? "secondary"} pendingText={pendingText}>
        {label}
      </SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}
