"use client";

import { useFormStatus } from "react-dom";
import { type ButtonProps, buttonClass } from "./Button";

/** A submit button that shows `pendingText` and ignores clicks while its form's action runs. */
export function SubmitButton({
  variant,
  className,
  children,
  pendingText,
  disabled,
  ...rest
}: ButtonProps & { pendingText?: string }) {
  const { pending } = useFormStatus();
  return (
    <button
      type="submit"
      className={buttonClass(variant, className)}
      disabled={disabled || pending}
      aria-disabled={disabled || pending}
      {...rest}
    >
      {pending && pendingText ? pendingText : children}
    </button>
  );
}
