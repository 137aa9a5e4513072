"use client";

import { useActionState, useEffect, useState } from "react";
import { FormMessage, InputField, SubmitButton } from "@/components/ui";
import type { ActionState } from "@/lib/auth/action";
import { signUpAction } from "./actions";

export function SignUpForm({ passwordMin }: { passwordMin: number }) {
  const [state, action] = useActionState<ActionState, FormData>(signUpAction, {});
  const v = state.values ?? {};
  const err = state.fieldErrors ?? {};
  // The business's time zone starts as this browser's (changeable later in Data & retention). Read after
  // hydration: the server does not know it.
  const [timeZone, setTimeZone] = useState("");
  useEffect(() => setTimeZone(Intl.DateTimeFormat().resolvedOptions().timeZone ?? ""), []);
  return (
    <form action={action} className="card mt-6 space-y-4" noValidate>
      <FormMessage state={state} />
      <input type="hidden" name="timeZone" value={timeZone} />
      <InputField
        id="name"
        name="name"
        label="Your name"
        autoComplete="name"
        required
        defaultValue={v.name}
        error={err.name}
      />
      <InputField
        id="email"
        name="email"
        type="email"
        label="E-mail"
        autoComplete="email"
        required
        defaultValue={v.email}
        error={err.email}
      />
      <InputField
        id="businessName"
        name="businessName"
        label="Business name"
        help="Shown to your visitors; it also gives your admin pages their address."
        autoComplete="organization"
        required
        defaultValue={v.businessName}
        error={err.businessName}
      />
      <InputField
        id="password"
        name="password"
        type="password"
        label="Password"
        help={`At least ${passwordMin} characters.`}
        autoComplete="new-password"
        required
        error={err.password}
      />
      <SubmitButton className="w-full justify-center" pendingText="Sending…">
        Create account
      </SubmitButton>
    </form>
  );
}
