"use client";

import { useActionState } from "react";
import { Field, FormMessage, SubmitButton } from "@/components/ui";
import type { PlainActionFn } from "@/lib/auth/action";

/** The business's time zone, picked from the zones the server knows. */
export function TimeZoneForm({
  action,
  zone,
  zones,
}: {
  action: PlainActionFn;
  zone: string;
  zones: string[];
}) {
  const [state, formAction] = useActionState(action, {});
  return (
    <form action={formAction} className="space-y-3" noValidate>
      <FormMessage state={state} />
      <Field
        id="time-zone"
        label="Time zone"
        help="Every date, time and daily chart of this admin is shown in it, for everyone on the team."
        error={state.fieldErrors?.timeZone}
      >
        {(c) => (
          <select
            {...c}
            name="timeZone"
            className="input max-w-sm"
            defaultValue={state.values?.timeZone ?? zone}
          >
            {zones.map((z) => (
              <option key={z} value={z}>
                {z.replaceAll("_", " ")}
              </option>
            ))}
          </select>
        )}
      </Field>
      <SubmitButton pendingText="Saving…">Save time zone</SubmitButton>
    </form>
  );
}
