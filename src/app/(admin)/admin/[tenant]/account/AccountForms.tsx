"use client";

import { useActionState } from "react";
import { FormError, FormMessage, InputField, SubmitButton } from "@/components/ui";
import type { PlainActionFn } from "@/lib/auth/action";

export function NameForm({ action, name }: { action: PlainActionFn; name: string }) {
  const [state, formAction] = useActionState(action, {});
  return (
    <form action={formAction} className="space-y-4" noValidate>
      <FormMessage state={state} />
      <InputField
        id="account-name"
        name="name"
        label="Your name"
        autoComplete="name"
        required
        defaultValue={state.values?.name ?? name}
        error={state.fieldErrors?.name}
      />
      <SubmitButton pendingText="Saving…">Save name</SubmitButton>
    </form>
  );
}

export function PasswordForm({ action, passwordMin }: { action: PlainActionFn; passwordMin: number }) {
  const [state, formAction] = useActionState(action, {});
  const err = state.fieldErrors ?? {};
  return (
    <form action={formAction} className="space-y-4" noValidate>
      <FormMessage state={state} />
      <InputField
        id="current-password"
        name="currentPassword"
        type="password"
        label="Current password"
        autoComplete="current-password"
        required
        error={err.currentPassword}
      />
      <InputField
        id="new-password"
        name="newPassword"
        type="password"
        label="New password"
        help={`At least ${passwordMin} characters.`}
        autoComplete="new-password"
        required
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
      <SubmitButton pendingText="Changing…">Change password</SubmitButton>
    </form>
  );
}

export function SignOutEverywhereForm({ action }: { action: PlainActionFn }) {
  const [state, formAction] = useActionState(action, {});
  return (
    <form action={formAction} className="space-y-3">
      <FormError state={state} />
      <SubmitButton variant="danger" pendingText="Signing out…">
        Sign out everywhere
      </SubmitButton>
    </form>
  );
}
