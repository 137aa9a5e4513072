import type { ButtonHTMLAttributes } from "react";

// Buttons on top of the .btn tokens in globals.css. `Button` renders anywhere; `SubmitButton` (client) also
// disables itself while its form is being submitted.

export type ButtonVariant = "primary" | "secondary" | "danger";

export function buttonClass(variant: ButtonVariant = "primary", extra?: string): string {
  const v = variant === "secondary" ? " btn-secondary" : variant === "danger" ? " btn-danger" : "";
  return `btn${v}${extra ? ` ${extra}` : ""}`;
}

export type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & { variant?: ButtonVariant };

export function Button({ variant, className, type = "button", ...rest }: ButtonProps) {
  return <button type={type} className={buttonClass(variant, className)} {...rest} />;
}
