"use client";

import { type FormEvent, startTransition, useEffect, useRef } from "react";
import type { ActionState } from "@/lib/auth/action";

/**
 * For admin forms that must keep what was typed after a failed save. React resets a form only when it owns
 * the submission, so the form is submitted by hand; and after a failed save the first invalid field takes
 * focus, so keyboard and screen-reader users land on what to fix.
 */
export function useKeptForm(state: ActionState, formAction: (fd: FormData) => void) {
  const formRef = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (state.ok === false && state.fieldErrors) {
      formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
    }
  }, [state]);
  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const fd = new FormData(e.currentTarget);
    startTransition(() => formAction(fd));
  }
  return { formRef, onSubmit };
}
