"use client";

import { useActionState } from "react";
import { FormError, InputField, SubmitButton } from "@/components/ui";
import type { ActionState } from "@/lib/auth/action";
import { resetPasswordAction } from "./form-actions";

export function ResetForm({ token, passwordMin }: { token: string; passwordMin: number }) {
  const [state, action] = useActionState<ActionState, FormData>(resetPasswordAction, {});
  const err = state.fieldErrors ?? {};
  return (
    <form action={action} className="card mt-6 space-y-4" noValidate>
      <FormError state={state} />
      <input type="hidden" name="token" value={token} />
      <InputField
        id="new-password"
        name="newPassword"
        type="password"
        label="New password"
        autoComplete="new-password"
        required
        help={`At least ${passwordMin} characters.`}
        error={err.newPassword}
      />
      <InputField
        id="confirm-password"
        name="confirmPassword"
        type="password"
        label="New password again"
        autoComplete="new-password"
        required
        error={err.confirmPassword}
      />
      <SubmitButton className="w-full justify-center" pendingText="Saving…">
        Set new password
      </SubmitButton>
    </form>
  );
}
