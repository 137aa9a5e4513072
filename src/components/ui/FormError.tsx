import type { ActionState } from "@/lib/auth/action";

// The outcome of a server action, announced to screen readers: errors as alerts, successes as status.

export function FormError({ state, id }: { state: ActionState | undefined; id?: string }) {
  if (state?.ok !== false || !state.message) return null;
  return (
    <p
      id={id}
      role="alert"
      className="rounded-lg border border-danger-600/40 bg-danger-600/10 px-3 py-2 text-sm text-danger-700 dark:text-red-300"
    >
      {state.message}
    </p>
  );
}

export function FormSuccess({ state }: { state: ActionState | undefined }) {
  if (state?.ok !== true || !state.message) return null;
  return (
    <p
      role="status"
      className="rounded-lg border border-ok-600/40 bg-ok-600/10 px-3 py-2 text-sm text-green-800 dark:text-green-300"
    >
      {state.message}
    </p>
  );
}

/** Either of the above, for forms that show both in the same place. */
export function FormMessage({ state }: { state: ActionState | undefined }) {
  return (
    <>
      <FormError state={state} />
      <FormSuccess state={state} />
    </>
  );
}
