"use client";

import { useActionState } from "react";
import { FormMessage, InputField, SubmitButton } from "@/components/ui";
import type { ActionState } from "@/lib/auth/action";
import { requestResetAction } from "./actions";

export function ForgotForm() {
  const [state, action] = useActionState<ActionState, FormData>(requestResetAction, {});
  return (
    <form action={action} className="card mt-6 space-y-4" noValidate>
      <FormMessage state={state} />
      <InputField
        id="email"
        name="email"
        type="email"
        label="E-mail"
        autoComplete="username"
        required
        defaultValue={state.ok ? "" : (state.values?.email ?? "")}
        error={state.fieldErrors?.email}
      />
      <SubmitButton className="w-full justify-center" pendingText="Sending…">
        Send me a link
      </SubmitButton>
    </form>
  );
}
