"use client";

import { signIn } from "next-auth/react";
import { useActionState } from "react";
import { FormError, InputField, SubmitButton } from "@/components/ui";
import type { ActionState } from "@/lib/auth/action";
import { signInAction } from "./actions";

export function SignInForm({ callbackUrl, github }: { callbackUrl: string; github: boolean }) {
  const [state, action] = useActionState<ActionState, FormData>(signInAction, {});
  return (
    <>
      <form action={action} className="card mt-6 space-y-4" noValidate>
        <FormError state={state} id="signin-error" />
        <input type="hidden" name="callbackUrl" value={callbackUrl} />
        <InputField
          id="email"
          name="email"
          type="email"
          label="E-mail"
          autoComplete="username"
          required
          defaultValue={state.values?.email ?? ""}
          error={state.fieldErrors?.email}
        />
        <InputField
          id="password"
          name="password"
          type="password"
          label="Password"
          autoComplete="current-password"
          required
          error={state.fieldErrors?.password}
        />
        <SubmitButton className="w-full justify-center" pendingText="Signing in…">
          Sign in
        </SubmitButton>
      </form>
      {github ? (
        <div className="mt-4">
          <button
            type="button"
            className="btn btn-secondary w-full justify-center"
            onClick={() => signIn("github", { callbackUrl })}
          >
            Continue with GitHub
          </button>
        </div>
      ) : null}
    </>
  );
}
