"use client";

import { useActionState } from "react";
import { FormError, FormMessage, InputField, SubmitButton } from "@/components/ui";
import type { ActionState } from "@/lib/auth/action";
import { acceptInvitationAction, inviteSignUpAction } from "./form-actions";

export function AcceptForm({ token, business }: { token: string; business: string }) {
  const [state, action] = useActionState<ActionState, FormData>(acceptInvitationAction, {});
  return (
    <form action={action} className="mt-4 space-y-3">
      <FormError state={state} />
      <input type="hidden" name="token" value={token} />
      <SubmitButton pendingText="Joining…">Accept and join {business}</SubmitButton>
    </form>
  );
}

export function InviteSignUpForm({
  token,
  email,
  passwordMin,
}: {
  token: string;
  email: string;
  passwordMin: number;
}) {
  const [state, action] = useActionState<ActionState, FormData>(inviteSignUpAction, {});
  const v = state.values ?? {};
  const err = state.fieldErrors ?? {};
  return (
    <form action={action} className="mt-4 space-y-4" noValidate>
      <FormMessage state={state} />
      <input type="hidden" name="token" value={token} />
      <p className="text-sm">
        Your account will use the address this invitation was sent to: <strong>{email}</strong>. We e-mail a
        link there to confirm it; opening it creates your account and accepts.
      </p>
      <InputField
        id="invite-name"
        name="name"
        label="Your name"
        autoComplete="name"
        required
        defaultValue={v.name}
        error={err.name}
      />
      <InputField
        id="invite-password"
        name="password"
        type="password"
        label="Choose a password"
        autoComplete="new-password"
        required
        help={`At least ${passwordMin} characters.`}
        error={err.password}
      />
      <SubmitButton pendingText="Sending…">Create my account and join</SubmitButton>
    </form>
  );
}
