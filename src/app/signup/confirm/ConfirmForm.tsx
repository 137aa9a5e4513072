"use client";

import { useActionState } from "react";
import { FormError, InputField, SubmitButton } from "@/components/ui";
import type { ActionState } from "@/lib/auth/action";
import { confirmSignUpAction } from "./form-actions";

export function ConfirmForm({ token }: { token: string }) {
  const [state, action] = useActionState<ActionState, FormData>(confirmSignUpAction, {});
  return (
    <form action={action} className="card mt-6 space-y-4" noValidate>
      <FormError state={state} />
      <input type="hidden" name="token" value={token} />
      <InputField
        id="confirm-password"
        name="password"
        type="password"
        label="Your password"
        autoComplete="current-password"
        required
        error={state.fieldErrors?.password}
      />
      <SubmitButton className="w-full justify-center" pendingText="Creating your account…">
        Create my account
      </SubmitButton>
    </form>
  );
}
